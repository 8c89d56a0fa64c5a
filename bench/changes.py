"""The change feed of one batch: what it costs as the state grows, and next to Spark's own.

    python bench/changes.py [--keys 1000000] [--repeat 3] [--dir bench/out]

The state: the benchmarks' streaming aggregation over ``--keys`` keys and over a tenth of them,
one micro-batch each, then one edit batch that changes 10 keys (5 updated, 5 inserted), on
RocksDB with changelog checkpointing (where Spark keeps a change feed) and HDFS-backed, in 4
state partitions (as the other benchmarks) and in 200 (Spark's default). RocksDB once more with
the aggregation's batch kept as a snapshot (``.zip``, as a query past its first snapshots keeps
most of its state) rather than a changelog that a load replays.

(a) ``savepoint_changes`` of the edit batch at ``--keys`` / at a tenth: goal 1 (the feed of a
    batch costs its changes, not the state). It reads the batch's change files, then looks the
    changed keys up as of the batch before (one load of each partition that changed: with 4
    partitions every one, with 200 at most 10 of them).
(b) the same feed with a key filter (the 10 keys).
(c) ours / Spark's ``readChangeFeed`` of the batch, which reads the change files only but
    cannot tell an insert from an update (docs/checkpoint-formats.md).
(d) ours / the diff of two full reads (``spark.savepoint.changes.fromChangeFiles=false``, how
    every feed was read before), 4 partitions.

Best of ``--repeat`` runs, the sides alternating after a warm-up round; ratios last.
"""

from __future__ import annotations

from pathlib import Path

from common import bench_parser, bench_session, best_side_by_side, build_keyed_state
from pyspark.sql import SparkSession

from spark_savepoint import attach
from spark_savepoint.catalog import settings

CHANGED = 10
CHANGELOG = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"


FROM_CHANGE_FILES = settings.CHANGES_FROM_CHANGE_FILES


def edited(
    spark: SparkSession, root: Path, provider: str, keys: int, partitions: int, snapshot: bool
) -> Path:
    """The aggregation over ``keys`` keys in ``partitions`` partitions with one edit batch (batch
    1) after it, built once (``snapshot``: the aggregation's batch kept as a RocksDB snapshot,
    not a changelog): its checkpoint, attached as :func:`catalog`."""
    spark.conf.set(CHANGELOG, str(not snapshot).lower())
    folder = root / ("changes-snapshot" if snapshot else "changes")
    checkpoint = build_keyed_state(spark, folder, provider, keys, partitions=partitions)
    spark.conf.set(CHANGELOG, "true")
    name = catalog(provider, keys, partitions) + ("_zip" if snapshot else "")
    attach(spark, str(checkpoint), name)
    if not (checkpoint / "commits" / "1").exists():
        half = CHANGED // 2
        rows = [f"({k}, 1000, 1000)" for k in range(half)]  # updated
        rows += [f"({keys + k}, 1000, 1000)" for k in range(half)]  # inserted
        spark.sql(f"INSERT INTO {name}.agg_0.default VALUES {', '.join(rows)}")
    return checkpoint


def catalog(provider: str, keys: int, partitions: int) -> str:
    return f"ch_{provider}_{keys}_p{partitions}"


def feed(spark: SparkSession, catalog: str, keys: int | None = None, diffed: bool = False) -> int:
    """Our change feed of batch 1 (with ``keys``: of the changed keys only; ``diffed``: as the
    diff of two full reads), counted."""
    where = ""
    if keys is not None:
        changed = [*range(CHANGED // 2), *range(keys, keys + CHANGED // 2)]
        where = f" WHERE key IN ({', '.join(map(str, changed))})"
    table = f"{catalog}.agg_0.default"
    spark.conf.set(FROM_CHANGE_FILES, str(not diffed).lower())
    try:
        return spark.sql(f"SELECT * FROM savepoint_changes('{table}', 1, 1){where}").count()
    finally:
        spark.conf.unset(FROM_CHANGE_FILES)


def spark_feed(spark: SparkSession, checkpoint: Path) -> int:
    """Spark's own ``readChangeFeed`` of batch 1, counted."""
    return (
        spark.read.format("statestore")
        .option("readChangeFeed", "true")
        .option("changeStartBatchId", 1)
        .option("changeEndBatchId", 1)
        .load(str(checkpoint))
        .count()
    )


def measure(
    spark: SparkSession,
    root: Path,
    provider: str,
    keys: int,
    partitions: int,
    repeat: int,
    snapshot: bool = False,
) -> list[str]:
    """The best times of one provider and partition count, printed; its ratios."""
    small = max(keys // 10, CHANGED)
    big_ckpt = edited(spark, root, provider, keys, partitions, snapshot)
    edited(spark, root, provider, small, partitions, snapshot)
    suffix = "_zip" if snapshot else ""
    big = catalog(provider, keys, partitions) + suffix
    little = catalog(provider, small, partitions) + suffix
    assert feed(spark, big) == CHANGED == feed(spark, big, keys) == spark_feed(spark, big_ckpt)
    actions = {
        "big": lambda: feed(spark, big),
        "small": lambda: feed(spark, little),
        "keyed": lambda: feed(spark, big, keys),
        "spark": lambda: spark_feed(spark, big_ckpt),
    }
    if partitions == 4 and not snapshot:
        actions["diffed"] = lambda: feed(spark, big, diffed=True)
    best = best_side_by_side(actions, repeat)
    diffed = f", as two full reads {best['diffed']:.3f} s" if "diffed" in best else ""
    kept = " (snapshot)" if snapshot else ""
    print(
        f"{provider:8s} {partitions:3d} partitions{kept}, best of {repeat}: feed of one batch at"
        f" {keys} keys {best['big']:.3f} s, at {small} keys {best['small']:.3f} s, key filter"
        f" {best['keyed']:.3f} s, Spark's readChangeFeed {best['spark']:.3f} s{diffed}",
        flush=True,
    )
    at = f"{provider} {partitions} partitions{kept}"
    ratios = [
        f"{at} feed at {keys} / at {small} keys: {best['big'] / best['small']:.2f} (goal 1)",
        f"{at} keyed feed / full feed: {best['keyed'] / best['big']:.2f}",
        f"{at} ours / Spark's readChangeFeed: {best['big'] / best['spark']:.2f}",
    ]
    if "diffed" in best:
        ratios.append(f"{at} ours / two full reads: {best['big'] / best['diffed']:.2f}")
    return ratios


def main() -> None:
    args = bench_parser(__doc__).parse_args()
    spark = bench_session(args.master, args.driver_memory)
    spark.conf.set(CHANGELOG, "true")
    ratios = [
        line
        for provider in ("rocksdb", "hdfs")
        for partitions in (4, 200)
        for line in measure(spark, Path(args.dir), provider, args.keys, partitions, args.repeat)
    ]
    ratios += measure(spark, Path(args.dir), "rocksdb", args.keys, 4, args.repeat, snapshot=True)
    spark.stop()
    for line in ratios:
        print(line)


if __name__ == "__main__":
    main()
