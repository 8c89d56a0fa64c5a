"""Shared pieces of the benchmarks: a session with the jar, a large real checkpoint, timing."""

from __future__ import annotations

import argparse
import atexit
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    """The options every benchmark takes: ``--keys``, ``--repeat`` (best of), ``--dir``,
    ``--master`` (``local[2]``; ``spark://host:port``; ``standalone``: Spark's standalone
    cluster of two workers started on loopback for the run, see :func:`master_url`),
    ``--driver-memory`` (4g; more for tens of millions of keys in HDFS-backed state, whose
    partitions Spark's provider loads into maps on the heap)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--keys", type=int, default=keys)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--dir", default=str(OUT))
    add_session_options(parser)
    return parser


def add_session_options(parser: argparse.ArgumentParser) -> None:
    """``--master`` and ``--driver-memory``, as :func:`bench_session` takes them."""
    parser.add_argument("--master", default="local[2]", help="see bench/common.py")
    parser.add_argument("--driver-memory", default="4g")


def master_url(master: str) -> str:
    """``master`` as Spark takes it: ``standalone`` starts a master and two workers of one core
    and 1 GB each from pyspark's jars (each a JVM of its own, ``tests.support.standalone``),
    stopped when the benchmark exits. Their executors share this machine's disk, so the
    benchmarks' local folders serve them as they are."""
    if master != "standalone":
        return master
    from tests.support.standalone import start_cluster

    cluster = start_cluster(workers=2)
    atexit.register(cluster.stop)
    return cluster.url


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


def bench_session(master: str = "local[2]", driver_memory: str = "4g") -> SparkSession:
    """The benchmarks' session on ``master`` (:func:`master_url`; a cluster's executors get 1
    GB each), its driver's heap ``driver_memory``."""
    master = master_url(master)
    cluster = {} if master.startswith("local") else {"spark.executor.memory": "1g"}
    spark = session(
        master=master,
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.driver.memory": driver_memory,
            "spark.ui.showConsoleProgress": "false",
            **cluster,
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


@dataclass(frozen=True)
class TimeSplit:
    """Where the time of one action went: ``wall`` seconds in all; ``driver``, the part no Spark
    stage ran (planning, reading logs and metadata, claiming and committing the batch: the
    driver alone); ``stages``, the part some stage ran; ``tasks``, the tasks' run time summed
    over every executor core (the work a cluster spreads)."""

    wall: float
    driver: float
    stages: float
    tasks: float


def time_split(spark: SparkSession, action: Callable[[], object]) -> TimeSplit:
    """Runs ``action`` from a quiet JVM and splits its time (:class:`TimeSplit`) by the stages
    Spark's status store recorded meanwhile."""
    sc = spark.sparkContext._jsc.sc()  # type: ignore[union-attr]
    before = {stage[0] for stage in _stages(sc)}
    quiesce(spark)
    start_ms = time.time() * 1000
    start = time.perf_counter()
    action()
    wall = time.perf_counter() - start
    sc.listenerBus().waitUntilEmpty(30_000)
    new = [stage for stage in _stages(sc) if stage[0] not in before]
    busy, end = 0.0, start_ms
    for _, submitted, completed, _ in sorted(new, key=lambda stage: stage[1]):
        submitted, completed = max(submitted, end), max(completed, end)
        busy += completed - submitted
        end = completed
    stages = min(busy / 1000, wall)
    return TimeSplit(wall, wall - stages, stages, sum(stage[3] for stage in new) / 1000)


def _stages(sc: Any) -> list[tuple[int, float, float, float]]:
    """Every completed stage: (id, submitted ms, completed ms, tasks' run time ms)."""
    stages = _stage_list(sc)
    out = []
    for i in range(stages.size()):
        stage = stages.apply(i)
        if stage.submissionTime().isDefined() and stage.completionTime().isDefined():
            out.append((stage.stageId(), float(stage.submissionTime().get().getTime()),
                        float(stage.completionTime().get().getTime()),
                        float(stage.executorRunTime())))  # fmt: skip
    return out


def _stage_list(sc: Any) -> Any:
    """``AppStatusStore.stageList`` of every status, its defaulted parameters given (py4j sees
    no Scala defaults): statuses, details, withSummaries, unsortedQuantiles, taskStatus."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    assert gateway is not None
    jvm = gateway.jvm
    quantiles = gateway.new_array(jvm.double, 0)
    return sc.statusStore().stageList(None, False, False, quantiles, jvm.java.util.ArrayList())
