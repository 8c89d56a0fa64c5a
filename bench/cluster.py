"""Where each operation's time goes, driver and executors, on any master.

    python bench/cluster.py [--master local[2] | spark://host:port | standalone]
                            [--keys 1000000] [--dir bench/out]

The state: the benchmarks' streaming aggregation over ``--keys`` keys in 4 partitions, both
providers. Each operation runs on a fresh copy where it writes, after one warm-up round: a full
read (``count``), a one-key lookup, a 10-key upsert, an ``INSERT OVERWRITE`` of every key, a
savepoint take and its restore onto 8 partitions. For each, :func:`common.time_split` says how
long it took, how much of that the driver spent alone (no stage running: planning, reading the
logs and metadata, claiming and committing the batch), how long stages ran, and the tasks' run
time summed over every executor core: the work more executors share. ``--master standalone``
starts Spark's standalone cluster (a master and two workers, each a JVM of its own) for the run;
on one machine it is not faster, it shows what a cluster runs where. Best of ``--repeat``.

Prints one line per operation while running; last, one line per operation with the driver's
share of its time.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from common import (
    TimeSplit,
    bench_parser,
    bench_session,
    build_keyed_state,
    time_split,
)
from pyspark.sql import SparkSession

from spark_savepoint import attach, restore_savepoint, take_savepoint
from spark_savepoint.catalog import settings

TABLE = "cl.agg_0.default"


def operations(spark: SparkSession, base: Path, scratch: Path, keys: int) -> dict[str, Callable]:
    """Each operation, as a function that prepares a fresh copy where it writes and returns the
    timed action."""

    def copy() -> Path:
        target = scratch / uuid.uuid4().hex[:8] / "checkpoint"
        shutil.copytree(base, target)
        attach(spark, str(target), "cl", writable=True)
        spark.conf.set(settings.WRITE_FORCE, "true")  # a copy's files look like a live query's
        return target

    def reading() -> Callable[[], object]:
        attach(spark, str(base), "cl")
        return lambda: spark.table(TABLE).count()

    def lookup() -> Callable[[], object]:
        attach(spark, str(base), "cl")
        return lambda: spark.sql(f"SELECT * FROM {TABLE} WHERE key = {keys // 2}").collect()

    def upsert() -> Callable[[], object]:
        copy()
        values = ", ".join(f"({k}, 7, 7)" for k in range(keys - 5, keys + 5))
        return lambda: spark.sql(f"INSERT INTO {TABLE} VALUES {values}")

    def overwrite() -> Callable[[], object]:
        copy()
        return lambda: spark.sql(f"INSERT OVERWRITE {TABLE} SELECT id, 2L, id FROM range({keys})")

    def take() -> Callable[[], object]:
        target = scratch / uuid.uuid4().hex[:8]
        return lambda: take_savepoint(spark, str(base), str(target))

    def restore() -> Callable[[], object]:
        savepoint = scratch / uuid.uuid4().hex[:8]
        take_savepoint(spark, str(base), str(savepoint))
        target = scratch / uuid.uuid4().hex[:8]
        return lambda: restore_savepoint(spark, str(savepoint), str(target), 8)

    return {
        "full read": reading,
        "one-key lookup": lookup,
        "10-key upsert": upsert,
        "INSERT OVERWRITE": overwrite,
        "savepoint take": take,
        "restore 4 -> 8": restore,
    }


def best(spark: SparkSession, prepare: Callable[[], Callable], repeat: int) -> TimeSplit:
    """The fastest of ``repeat`` runs (after a warm-up), each prepared afresh."""
    time_split(spark, prepare())
    return min((time_split(spark, prepare()) for _ in range(repeat)), key=lambda t: t.wall)


def main() -> None:
    args = bench_parser(__doc__).parse_args()
    spark = bench_session(args.master, args.driver_memory)
    root = Path(args.dir)
    scratch = root / "cluster-scratch"
    shares = []
    for provider in ("hdfs", "rocksdb"):
        base = build_keyed_state(spark, root, provider, args.keys)
        for name, prepare in operations(spark, base, scratch, args.keys).items():
            split = best(spark, prepare, args.repeat)
            print(
                f"{provider:8s} {name:17s} {split.wall:6.2f} s: driver alone"
                f" {split.driver:5.2f} s, stages {split.stages:5.2f} s, tasks' run time"
                f" {split.tasks:6.2f} s",
                flush=True,
            )
            shares.append(
                f"{provider} {name}: driver alone / wall {split.driver / split.wall:.2f},"
                f" tasks / wall {split.tasks / split.wall:.2f} ({args.master})"
            )
        shutil.rmtree(scratch, ignore_errors=True)
    spark.stop()
    for line in shares:
        print(line)


if __name__ == "__main__":
    main()
