"""Shared pieces of the benchmarks: a session with the jar, a large real checkpoint, timing."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from spark_savepoint import session  # noqa: E402

PROVIDERS = {
    "hdfs": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
}


OUT = Path(__file__).parent / "out"
"""Where the benchmarks keep their input and checkpoints between runs (``--dir``)."""


def bench_parser(doc: str, keys: int = 1_000_000, repeat: int = 3) -> argparse.ArgumentParser:
    """The options every benchmark takes: ``--keys``, ``--repeat`` (best of), ``--dir``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--keys", type=int, default=keys)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--dir", default=str(OUT))
    return parser


def best_side_by_side(actions: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """The best time of each action over ``repeat`` rounds, the actions alternating (after one
    warm-up round: class loading, first plans)."""
    for action in actions.values():
        action()
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(repeat):
        for name, action in actions.items():
            times[name].append(median_seconds(action, 1))
    return {name: min(t) for name, t in times.items()}


def bench_session() -> SparkSession:
    spark = session(
        master="local[2]",
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.driver.memory": "4g",
            "spark.ui.showConsoleProgress": "false",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def keyed_input(spark: SparkSession, root: Path, keys: int, events_per_key: int = 1) -> Path:
    """Parquet input of ``keys`` distinct keys, ``events_per_key`` rows each (written once)."""
    source = root / f"input-{keys}x{events_per_key}"
    if not (source / "_SUCCESS").exists():
        spark.range(keys * events_per_key).select(
            (F.col("id") % keys).alias("key"), (F.col("id") % 97).alias("amount")
        ).write.mode("overwrite").parquet(str(source))
    return source


def run_aggregation(
    spark: SparkSession, source: Path, checkpoint: Path, provider: str, partitions: int = 4
) -> Path:
    """Runs the benchmarks' streaming aggregation over ``source`` into ``checkpoint`` until it
    has read everything (one micro-batch), its state in ``partitions`` partitions; returns the
    checkpoint."""
    confs = {
        "spark.sql.streaming.stateStore.providerClass": PROVIDERS[provider],
        "spark.sql.shuffle.partitions": str(partitions),
    }
    previous = {name: spark.conf.get(name) for name in confs}
    for name, value in confs.items():
        spark.conf.set(name, value)
    try:
        stream = spark.readStream.schema("key BIGINT, amount BIGINT").parquet(str(source))
        query = (
            stream.groupBy("key").agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"))
            .writeStream.outputMode("update").format("noop")
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True).start()
        )  # fmt: skip
        query.awaitTermination()
    finally:
        for name, value in previous.items():
            spark.conf.set(name, value)
    return checkpoint


def build_keyed_state(
    spark: SparkSession,
    root: Path,
    provider: str,
    keys: int,
    events_per_key: int = 1,
    partitions: int = 4,
) -> Path:
    """A streaming aggregation over ``keys`` distinct keys, ``events_per_key`` input rows each,
    one micro-batch, its state in ``partitions`` partitions; returns the checkpoint (reused
    when it already exists)."""
    name = f"agg-{provider}-{keys}" + (f"x{events_per_key}" if events_per_key > 1 else "")
    name += f"-p{partitions}" if partitions != 4 else ""
    checkpoint = root / name / "checkpoint"
    if (checkpoint / "commits" / "0").exists():
        return checkpoint
    source = keyed_input(spark, root, keys, events_per_key)
    return run_aggregation(spark, source, checkpoint, provider, partitions)


def quiesce(spark: SparkSession) -> None:
    """Untimed, before each measurement: closes the state stores that earlier queries and writes
    left loaded in this JVM (Spark unloads them only in its maintenance task, and an HDFS-backed
    store keeps its partition's map on the heap until then) and collects garbage, so that no side
    pays for what the one before it left behind."""
    jvm = spark.sparkContext._jvm  # type: ignore[attr-defined]
    jvm.org.apache.spark.sql.execution.streaming.state.StateStore.stop()
    jvm.java.lang.System.gc()


def timed(spark: SparkSession, action: Callable[[], object]) -> float:
    """Seconds ``action`` takes, from a quiet JVM (:func:`quiesce`)."""
    quiesce(spark)
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def best_seconds(action: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``action``, in seconds."""
    return min(median_seconds(action, 1) for _ in range(repeat))


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
