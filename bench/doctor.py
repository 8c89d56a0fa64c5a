"""The doctor's cost vs. reading every byte of the checkpoint once, 1M keys.

    python bench/doctor.py [--keys 1000000] [--repeat 3] [--dir bench/out]

The state: the benchmarks' streaming aggregation over ``--keys`` keys in one micro-batch, on
both providers (HDFS-backed: one ``.delta`` per partition; RocksDB: changelogs, or a zip and SST
files once maintenance uploaded them).

(a) ``verify`` (the file checks: one listing, every log entry, every file with a checksum read
    once in a Spark job, operator metadata and the zips the next batch loads) vs. reading every
    byte of the checkpoint once in a Spark job (``binaryFile`` with recursive lookup: the same
    parallelism; it skips hidden files, the checksum files among them, which the doctor reads).
    Goal: at most 2.
(b) ``verify(deep=True)``: the file checks plus loading each state table through Spark's state
    reader, as the restarted query would; printed for scale, no goal.

Best of ``--repeat`` runs, alternating; one line per measurement while running, ratios last.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from common import PROVIDERS, bench_session, build_keyed_state, timed
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from spark_savepoint import verify


def read_every_byte(spark: SparkSession, checkpoint: Path) -> int:
    """The checkpoint's bytes, every file read once by a Spark job."""
    files = spark.read.format("binaryFile").option("recursiveFileLookup", "true")
    return int(files.load(str(checkpoint)).select(F.sum(F.length("content"))).first()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=str(Path(__file__).parent / "out"))
    args = parser.parse_args()

    spark = bench_session()
    root = Path(args.dir)
    checkpoints = {p: build_keyed_state(spark, root, p, args.keys) for p in PROVIDERS}
    for checkpoint in checkpoints.values():  # warm-up: classes, the first job of each kind
        assert verify(spark, str(checkpoint)).findings == ()
        read_every_byte(spark, checkpoint)
    seconds: dict[tuple[str, str], list[float]] = {}
    sides = {
        "verify": lambda c: verify(spark, str(c)),
        "read": lambda c: read_every_byte(spark, c),
        "deep": lambda c: verify(spark, str(c), deep=True),
    }
    for _ in range(args.repeat):
        for provider, checkpoint in checkpoints.items():
            for side, action in sides.items():
                took = timed(spark, lambda a=action, c=checkpoint: a(c))
                seconds.setdefault((provider, side), []).append(took)
                print(f"{provider:8s} {side:7s} {args.keys} keys: {took:7.3f} s", flush=True)
    spark.stop()

    def best(provider: str, side: str) -> float:
        return min(seconds[(provider, side)])

    for provider in checkpoints:
        print(
            f"{provider:8s} best of {args.repeat}: verify {best(provider, 'verify'):.3f} s, "
            f"read every byte {best(provider, 'read'):.3f} s, verify --deep "
            f"{best(provider, 'deep'):.2f} s"
        )
    for provider in checkpoints:
        ratio = best(provider, "verify") / best(provider, "read")
        print(f"ratio verify/read-every-byte {provider}: {ratio:.2f} (goal <= 2)")
    for provider in checkpoints:
        ratio = best(provider, "deep") / best(provider, "read")
        print(f"ratio verify-deep/read-every-byte {provider}: {ratio:.2f} (no goal)")


if __name__ == "__main__":
    main()
