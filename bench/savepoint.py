"""Savepoint take and restore vs. a plain copy, a rebuild and Spark's own repartition, 1M keys.

    python bench/savepoint.py [--keys 1000000] [--events-per-key 10,100] [--repeat 3]
                              [--dir bench/out] [--driver-memory 4g]

The state: a streaming aggregation over ``--keys`` keys built from the first ``--events-per-key``
count of input rows per key, in one micro-batch (so the live state is its latest version and
nothing older).

(a) ``take_savepoint`` vs. a recursive copy of the checkpoint folder, both ``shutil.copytree``
    and Hadoop's ``FileUtil.copy`` (the copy through the FileSystem API that checkpoint paths on
    ``hdfs://`` or ``s3a://`` need, which take uses too); and the bytes of the savepoint's
    ``state/`` vs. the checkpoint's ``state/``. Take copies the version's files
    byte for byte where they are one full image (a RocksDB zip here, whose metadata gives the
    row count; an HDFS-backed ``1.delta``, copied unread: its rows are not counted unless
    ``count_rows``), then writes logs and a manifest with every file's SHA-256. Besides the
    copy, a take reads and writes the checkpoint's logs and metadata and runs one Spark job: a
    fixed ~0.1 s that decides the ratio while the state is a few MB.
(b) ``restore_savepoint`` with 4 -> 8 partitions (and 4 -> 8 onto the other provider, measured
    alone) vs. rebuilding the state by running the
    streaming query over its input again (``run_aggregation`` on a fresh folder; the input is
    written beforehand and not timed, as a replay reads input that already exists), once per
    ``--events-per-key`` count: a query's history has more events than keys, and a restore
    costs the same whatever the history was, while a rebuild grows with it. One micro-batch,
    the cheapest way to replay.
(c) RocksDB only: the same restore vs. Spark's offline repartition, 4 -> 8
    (``spark._streamingCheckpointManager.repartition``, which rewrites a checkpoint in place: it
    runs on a fresh copy each time, copying not timed).

Both providers; best of ``--repeat`` runs, which alternate so that all sides see the same
machine. Prints one line per measurement while running, the ratios last.
"""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

from common import (
    PROVIDERS,
    bench_parser,
    bench_session,
    build_keyed_state,
    keyed_input,
    run_aggregation,
    timed,
)
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from spark_savepoint import restore_savepoint, take_savepoint

PARTITIONS = 8  # bench_session's state has 4 partitions (spark.sql.shuffle.partitions)


def tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def check(spark: SparkSession, checkpoint: Path, keys: int, partitions: int, what: str) -> None:
    """The state of ``checkpoint``'s last batch has ``keys`` rows in ``partitions`` partitions."""
    df = spark.read.format("statestore").load(str(checkpoint))
    rows, parts = df.agg(F.count("*"), F.countDistinct("partition_id")).first()
    assert (rows, parts) == (keys, partitions), f"{what}: {rows} keys in {parts} partitions"


def spark_repartition(spark: SparkSession, checkpoint: Path, partitions: int) -> None:
    spark._streamingCheckpointManager.repartition(str(checkpoint), partitions)


def rebuild(events_per_key: int) -> str:
    """The name of the rebuild measurement over ``events_per_key`` input rows per key."""
    return f"rebuild_x{events_per_key}"


class Provider:
    """The measurements of one provider: seconds per run of each side, and state bytes."""

    def __init__(
        self, spark: SparkSession, name: str, root: Path, keys: int, events_per_key: list[int]
    ) -> None:
        self.spark, self.name, self.keys, self.events_per_key = spark, name, keys, events_per_key
        self.base = build_keyed_state(spark, root, name, keys, (events_per_key or [1])[0])
        self.inputs = {e: keyed_input(spark, root, keys, e) for e in events_per_key}
        self.scratch = root / f"savepoint-{name}-{keys}"
        self.savepoint = self.scratch / "savepoint"
        self.seconds: dict[str, list[float]] = {
            "copy": [],
            "hadoop_copy": [],
            "take": [],
            "restore": [],
            "restore_other": [],
            **{rebuild(e): [] for e in events_per_key},
            "spark": [],
        }
        self.state_bytes = tree_bytes(self.base / "state")
        self.savepoint_state_bytes = 0
        self.spark_error: str | None = None
        self.checked = False

    def fresh(self, name: str) -> Path:
        shutil.rmtree(self.scratch / name, ignore_errors=True)
        return self.scratch / name

    def record(self, what: str, seconds: float, note: str = "") -> None:
        self.seconds[what].append(seconds)
        print(f"{self.name:8s} {what:8s} {self.keys} keys: {seconds:7.3f} s{note}", flush=True)

    def run_copy(self) -> None:
        target = self.fresh("copy")
        self.record("copy", timed(self.spark, lambda: shutil.copytree(self.base, target)))

    def run_hadoop_copy(self) -> None:
        target = self.fresh("hadoop_copy")
        jvm = self.spark._jvm
        conf = self.spark._jsparkSession.sessionState().newHadoopConf()
        source = jvm.org.apache.hadoop.fs.Path(str(self.base))
        fs = source.getFileSystem(conf)
        dest = jvm.org.apache.hadoop.fs.Path(str(target))
        copy = jvm.org.apache.hadoop.fs.FileUtil.copy
        seconds = timed(self.spark, lambda: copy(fs, source, fs, dest, False, conf))
        self.record("hadoop_copy", seconds)

    def run_take(self) -> None:
        target = self.fresh("savepoint")
        manifest: list[dict] = []
        seconds = timed(
            self.spark,
            lambda: manifest.append(take_savepoint(self.spark, str(self.base), str(target))),
        )
        self.savepoint_state_bytes = tree_bytes(target / "state")
        rows = manifest[0]["rows"]  # None: an HDFS-backed image copied unread (not counted)
        assert rows in (self.keys, None), f"take: manifest has {rows} rows"
        self.record("take", seconds, f" ({self.savepoint_state_bytes} bytes in state/)")

    def run_restore(self) -> None:
        target = self.fresh("restored")
        seconds = timed(
            self.spark,
            lambda: restore_savepoint(self.spark, str(self.savepoint), str(target), PARTITIONS),
        )
        self.record("restore", seconds, f" (4 -> {PARTITIONS} partitions)")
        if not self.checked:
            check(self.spark, target, self.keys, PARTITIONS, "restore")

    def run_restore_other(self) -> None:
        other = next(name for name in PROVIDERS if name != self.name)
        target = self.fresh("restored_other")
        restore = partial(
            restore_savepoint, self.spark, str(self.savepoint), str(target), PARTITIONS, other
        )
        seconds = timed(self.spark, restore)
        self.record("restore_other", seconds, f" (4 -> {PARTITIONS} partitions, onto {other})")
        if not self.checked:
            check(self.spark, target, self.keys, PARTITIONS, f"restore onto {other}")

    def run_rebuild(self) -> None:
        for events in self.events_per_key:
            target = self.fresh("rebuild")
            replay = partial(run_aggregation, self.spark, self.inputs[events], target, self.name)
            seconds = timed(self.spark, replay)
            assert (target / "commits" / "0").exists(), "rebuild: the query committed no batch"
            self.record(rebuild(events), seconds, f" (replays {events} events per key)")
            if not self.checked:
                check(self.spark, target, self.keys, 4, "rebuild")

    def run_spark(self) -> None:
        if self.name != "rocksdb" or self.spark_error is not None:
            return
        target = self.fresh("spark")
        shutil.copytree(self.base, target)
        try:
            seconds = timed(self.spark, lambda: spark_repartition(self.spark, target, PARTITIONS))
        except Exception as error:  # the API is internal and experimental: report, skip
            self.spark_error = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
            print(f"{self.name:8s} Spark repartition failed: {self.spark_error}", flush=True)
            return
        self.record("spark", seconds, f" (Spark's repartition, 4 -> {PARTITIONS} partitions)")
        if not self.checked:
            check(self.spark, target, self.keys, PARTITIONS, "Spark repartition")

    def round(self) -> None:
        runs = (self.run_copy, self.run_hadoop_copy, self.run_take, self.run_restore,
                self.run_restore_other, self.run_rebuild)  # fmt: skip
        for run in runs:
            run()
        self.run_spark()
        self.checked = True

    def best(self, what: str) -> float:
        return min(self.seconds[what])


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument(
        "--events-per-key",
        type=lambda text: [int(n) for n in text.split(",") if n],
        default=[10, 100],
        help="input rows per key of the rebuilds, comma-separated (default: 10,100; empty: no"
        " rebuild, e.g. at 50M keys)",
    )
    args = parser.parse_args()

    spark = bench_session(args.master, args.driver_memory)
    root = Path(args.dir)
    warm = [Provider(spark, name, root, 1000, [1]) for name in PROVIDERS]
    for p in warm:  # warm-up on a small state: the first take/restore of a session loads classes
        p.round()
    providers = [Provider(spark, name, root, args.keys, args.events_per_key) for name in PROVIDERS]
    for _ in range(args.repeat):
        for p in providers:
            p.round()
    spark.stop()
    for p in warm + providers:
        shutil.rmtree(p.scratch, ignore_errors=True)

    for p in providers:
        print(
            f"{p.name:8s} best of {args.repeat}: "
            + ", ".join(
                [
                    f"copytree {p.best('copy'):.3f} s",
                    f"Hadoop copy {p.best('hadoop_copy'):.3f} s",
                    f"take {p.best('take'):.2f} s",
                    f"restore {p.best('restore'):.2f} s",
                    f"restore onto the other provider {p.best('restore_other'):.2f} s",
                    *(f"rebuild x{e} {p.best(rebuild(e)):.2f} s" for e in p.events_per_key),
                    *([f"Spark repartition {p.best('spark'):.2f} s"] if p.seconds["spark"] else []),
                ]
            )
            + f"; state/ bytes: checkpoint {p.state_bytes}, savepoint {p.savepoint_state_bytes}"
        )
    for p in providers:
        print(f"ratio take/copy {p.name}: {p.best('take') / p.best('copy'):.2f} (goal <= 1.2)")
    for p in providers:
        ratio = p.best("take") / p.best("hadoop_copy")
        print(f"ratio take/hadoop_copy {p.name}: {ratio:.2f} (goal <= 1.2)")
    for p in providers:
        print(
            f"ratio savepoint_state_bytes/checkpoint_state_bytes {p.name}: "
            f"{p.savepoint_state_bytes / p.state_bytes:.2f} (goal <= 1.0)"
        )
    for events in args.events_per_key:
        for p in providers:
            ratio = p.best(rebuild(events)) / p.best("restore")
            print(
                f"ratio rebuild/restore {p.name} ({events} events per key): {ratio:.2f} (goal >= 5)"
            )
    for p in providers:
        if p.name != "rocksdb":
            continue
        if p.seconds["spark"]:
            print(
                f"ratio restore/spark_repartition {p.name}: "
                f"{p.best('restore') / p.best('spark'):.2f} (goal <= 0.8)"
            )
        else:
            print(f"ratio restore/spark_repartition {p.name}: skipped, {p.spark_error}")


if __name__ == "__main__":
    main()
