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

Best of ``--repeat`` runs, the sides alternating after a warm-up round; ratios last.
"""

from __future__ import annotations

from pathlib import Path

from common import PROVIDERS, bench_parser, bench_session, best_side_by_side, build_keyed_state
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from spark_savepoint import verify


def read_every_byte(spark: SparkSession, checkpoint: Path) -> int:
    """The checkpoint's bytes, every file read once by a Spark job."""
    files = spark.read.format("binaryFile").option("recursiveFileLookup", "true")
    return int(files.load(str(checkpoint)).select(F.sum(F.length("content"))).first()[0])


def main() -> None:
    args = bench_parser(__doc__).parse_args()
    spark = bench_session(args.master, args.driver_memory)
    root = Path(args.dir)
    best: dict[str, dict[str, float]] = {}
    for provider in PROVIDERS:
        checkpoint = build_keyed_state(spark, root, provider, args.keys)
        assert verify(spark, str(checkpoint)).exit_code == 0  # healthy
        best[provider] = best_side_by_side(
            {
                "verify": lambda c=checkpoint: verify(spark, str(c)),
                "read": lambda c=checkpoint: read_every_byte(spark, c),
                "deep": lambda c=checkpoint: verify(spark, str(c), deep=True),
            },
            args.repeat,
        )
        print(
            f"{provider:8s} best of {args.repeat}, {args.keys} keys: verify"
            f" {best[provider]['verify']:.3f} s, read every byte {best[provider]['read']:.3f} s,"
            f" verify --deep {best[provider]['deep']:.2f} s",
            flush=True,
        )
    spark.stop()
    for provider, seconds in best.items():
        ratio = seconds["verify"] / seconds["read"]
        print(f"ratio verify/read-every-byte {provider}: {ratio:.2f} (goal <= 2)")
    for provider, seconds in best.items():
        ratio = seconds["deep"] / seconds["read"]
        print(f"ratio verify-deep/read-every-byte {provider}: {ratio:.2f} (no goal)")


if __name__ == "__main__":
    main()
