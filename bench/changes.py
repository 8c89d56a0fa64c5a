"""The change feed of one batch: what it costs as the state grows, and next to Spark's own.

    python bench/changes.py [--keys 1000000] [--repeat 3] [--dir bench/out]

The state: the benchmarks' streaming aggregation over ``--keys`` keys and over a tenth of them,
one micro-batch each, then one edit batch that changes 10 keys (5 updated, 5 inserted), on
RocksDB with changelog checkpointing (where Spark keeps a change feed) and HDFS-backed.

(a) ``savepoint_changes`` of the edit batch at ``--keys`` / at a tenth: goal 1 (the feed of a
    batch costs its changes, not the state); it reads both versions today.
(b) the same feed with a key filter (the 10 keys): both versions looked up, not scanned.
(c) ours / Spark's ``readChangeFeed`` of the batch (RocksDB), which reads the changelog files
    only but cannot tell an insert from an update (docs/checkpoint-formats.md).

Best of ``--repeat`` runs, the sides alternating after a warm-up round; ratios last.
"""

from __future__ import annotations

from pathlib import Path

from common import bench_parser, bench_session, best_side_by_side, build_keyed_state
from pyspark.sql import SparkSession

from spark_savepoint import attach

CHANGED = 10
CHANGELOG = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"


def edited(spark: SparkSession, root: Path, provider: str, keys: int) -> tuple[Path, int]:
    """The aggregation over ``keys`` keys with one edit batch after it (built once): its
    checkpoint and the edit's batch id."""
    checkpoint = build_keyed_state(spark, root / "changes", provider, keys)
    catalog = f"ch_{provider}_{keys}"
    attach(spark, str(checkpoint), catalog)
    if not (checkpoint / "commits" / "1").exists():
        half = CHANGED // 2
        rows = [f"({k}, 1000, 1000)" for k in range(half)]  # updated
        rows += [f"({keys + k}, 1000, 1000)" for k in range(half)]  # inserted
        spark.sql(f"INSERT INTO {catalog}.agg_0.default VALUES {', '.join(rows)}")
    return checkpoint, 1


def feed(spark: SparkSession, catalog: str, batch: int, keys: int | None = None) -> int:
    """Our change feed of ``batch`` (with ``keys``: of the changed keys only), counted."""
    where = ""
    if keys is not None:
        changed = [*range(CHANGED // 2), *range(keys, keys + CHANGED // 2)]
        where = f" WHERE key IN ({', '.join(map(str, changed))})"
    table = f"{catalog}.agg_0.default"
    return spark.sql(f"SELECT * FROM savepoint_changes('{table}', {batch}, {batch}){where}").count()


def spark_feed(spark: SparkSession, checkpoint: Path, batch: int) -> int:
    """Spark's own ``readChangeFeed`` of ``batch``, counted."""
    return (
        spark.read.format("statestore")
        .option("readChangeFeed", "true")
        .option("changeStartBatchId", batch)
        .option("changeEndBatchId", batch)
        .load(str(checkpoint))
        .count()
    )


def measure(spark: SparkSession, root: Path, provider: str, keys: int, repeat: int) -> list[str]:
    """The best times of one provider, printed; its ratios."""
    small = max(keys // 10, CHANGED)
    big_ckpt, batch = edited(spark, root, provider, keys)
    edited(spark, root, provider, small)
    big, little = f"ch_{provider}_{keys}", f"ch_{provider}_{small}"
    assert feed(spark, big, batch) == CHANGED == feed(spark, big, batch, keys)
    actions = {
        "big": lambda: feed(spark, big, batch),
        "small": lambda: feed(spark, little, batch),
        "keyed": lambda: feed(spark, big, batch, keys),
    }
    if provider == "rocksdb":
        actions["spark"] = lambda: spark_feed(spark, big_ckpt, batch)
    best = best_side_by_side(actions, repeat)
    theirs = f", Spark's readChangeFeed {best['spark']:.3f} s" if "spark" in best else ""
    print(
        f"{provider:8s} best of {repeat}: feed of one batch at {keys} keys {best['big']:.3f} s,"
        f" at {small} keys {best['small']:.3f} s, key filter {best['keyed']:.3f} s{theirs}",
        flush=True,
    )
    ratios = [
        f"{provider} feed at {keys} / at {small} keys: {best['big'] / best['small']:.2f} (goal 1)",
        f"{provider} keyed feed / full feed: {best['keyed'] / best['big']:.2f}",
    ]
    if "spark" in best:
        ratios.append(f"{provider} ours / Spark's feed: {best['big'] / best['spark']:.2f}")
    return ratios


def main() -> None:
    args = bench_parser(__doc__).parse_args()
    spark = bench_session()
    spark.conf.set(CHANGELOG, "true")
    ratios = [
        line
        for provider in ("rocksdb", "hdfs")
        for line in measure(spark, Path(args.dir), provider, args.keys, args.repeat)
    ]
    spark.stop()
    for line in ratios:
        print(line)


if __name__ == "__main__":
    main()
