"""Catalog reads vs. Spark's raw ``statestore`` read of the same 1M-key state, both providers.

    python bench/read.py [--keys 1000000] [--repeat 3] [--dir bench/out]

(a) Full read: every row materialised (``noop`` sink), the state in 4 partitions. The raw
    reader is timed as is (nested key/value structs, which a noop sink never decodes) and
    selecting ``key.*, value.*, partition_id`` (the same flat columns the catalog returns).
(b) One-key lookup, the state in 200 partitions (Spark's default): ``WHERE key = <k>`` on the
    catalog table (a key lookup: one partition loaded, one ``get``) vs. the same filter over the
    raw reader (``WHERE key.key = <k>``: every partition loaded and scanned). Each run looks up
    another key, collected to the driver; table resolution and planning are timed on both sides.

Runs alternate so both sides see the same machine; each figure is the best of ``--repeat``
runs. Prints one line per measurement, then one line per ratio with its goal.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from common import PROVIDERS, bench_parser, bench_session, best_side_by_side, build_keyed_state
from pyspark.sql import SparkSession

from spark_savepoint import attach

LOOKUP_PARTITIONS = 200


def full_read(spark: SparkSession, root: Path, provider: str, keys: int, repeat: int) -> float:
    checkpoint = str(build_keyed_state(spark, root, provider, keys))
    attach(spark, checkpoint, "bench")
    rows = spark.table("bench.agg_0.default").count()
    assert rows == keys, f"expected {keys} keys, read {rows}"

    def noop(df) -> None:  # noqa: ANN001
        df.write.format("noop").mode("overwrite").save()

    best = best_side_by_side(
        {
            "raw": lambda: noop(spark.read.format("statestore").load(checkpoint)),
            "raw_flat": lambda: noop(
                spark.read.format("statestore")
                .load(checkpoint)
                .select("key.*", "value.*", "partition_id")
            ),
            "ours": lambda: noop(spark.table("bench.agg_0.default")),
        },
        repeat,
    )
    print(
        f"{provider:8s} full read of {keys} keys: raw statestore {best['raw']:.2f} s, raw with"
        f" key.*/value.* selected {best['raw_flat']:.2f} s, catalog {best['ours']:.2f} s"
    )
    return best["ours"] / best["raw_flat"]


def lookup(spark: SparkSession, root: Path, provider: str, keys: int, repeat: int) -> float:
    checkpoint = str(build_keyed_state(spark, root, provider, keys, partitions=LOOKUP_PARTITIONS))
    attach(spark, checkpoint, "bench")
    probe = itertools.count(4242, 7919)

    def ours() -> None:
        k = next(probe) % keys
        rows = spark.sql(f"SELECT * FROM bench.agg_0.default WHERE key = {k}").collect()
        assert len(rows) == 1 and rows[0].key == k, rows

    def raw() -> None:
        k = next(probe) % keys
        rows = spark.read.format("statestore").load(checkpoint).where(f"key.key = {k}").collect()
        assert len(rows) == 1 and rows[0].key.key == k, rows

    best = best_side_by_side({"raw": raw, "ours": ours}, repeat)
    print(
        f"{provider:8s} one-key lookup in {keys} keys, {LOOKUP_PARTITIONS} partitions: raw"
        f" statestore filter {best['raw']:.3f} s, catalog {best['ours']:.3f} s"
    )
    return best["raw"] / best["ours"]


def main() -> None:
    parser = bench_parser(__doc__)
    args = parser.parse_args()

    spark = bench_session(args.master, args.driver_memory)
    root = Path(args.dir)
    reads = {p: full_read(spark, root, p, args.keys, args.repeat) for p in PROVIDERS}
    lookups = {p: lookup(spark, root, p, args.keys, args.repeat) for p in PROVIDERS}
    spark.stop()
    for provider, ratio in reads.items():
        print(f"ratio full read catalog/raw (flat columns), {provider}: {ratio:.3f} (goal <= 1.05)")
    for provider, ratio in lookups.items():
        print(f"ratio one-key lookup raw/catalog, {provider}: {ratio:.1f} (goal >= 10)")


if __name__ == "__main__":
    main()
