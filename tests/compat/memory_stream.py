"""Restart the queries of Spark's own golden checkpoints: Spark's ``MemoryStream``, through py4j.

Spark's suites wrote those checkpoints with a ``MemoryStream``, whose offset is the index of its
last added batch (``offsets/N`` holds that number). ``restart`` builds the same query on a new
stream, adds as many (empty) batches as the checkpoint's last batch has already read, then
``rows`` as one more batch, runs the query on the checkpoint until it has processed everything
and returns what that batch emitted (``foreachBatch``, which consumes the batch DataFrame).
Rows go to the JVM through a DataFrame (``createDataFrame(...).as(encoder)``), so each value
has its column's JVM type (py4j would box a Python int as an Integer whatever the column).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from tests.support.streaming_queries import session_confs

CHECKPOINT_FORMAT_CONF = "spark.sql.streaming.stateStore.checkpointFormatVersion"
"""Spark takes the state checkpoint format from the session, not from the checkpoint."""

QUERIES: dict[str, Callable[[DataFrame], DataFrame]] = {
    "count_by_1": lambda df: df.groupBy("_1").count(),
    "count_by_value": lambda df: df.groupBy("value").agg(F.count("*")),
    "sum_decimal": lambda df: df.selectExpr(
        "value", "value % 2 AS id", "CAST(value AS DECIMAL) AS dec"
    ).groupBy("id").agg(F.sum("dec").alias("sum_dec"), F.collect_list("value").alias("col_list")),
    "dedup_1": lambda df: df.dropDuplicates(["_1"]),
    "self_join": lambda df: _self_join(df),
    "dedup_pairs": lambda df: df.select(
        F.col("value").alias("key1"), (F.col("value") * 2).alias("key2")
    ).dropDuplicates(["key1", "key2"]),
    "dedup_key1_key2": lambda df: df.select(
        F.col("value").alias("key1"), (F.col("value") * 2).alias("key2"),
        (F.col("value") * 3).alias("value"),
    ).repartition("key1").dropDuplicates(["key1", "key2"]),
    "agg_key1_key2": lambda df: df.select(
        F.col("value").alias("key1"), (F.col("value") * 2).alias("key2"),
        (F.col("value") * 3).alias("value"),
    ).repartition("key1").groupBy("key1", "key2").agg(F.count("*").alias("count")),
}  # fmt: skip
"""The queries of the goldens, by name: the stream's DataFrame -> the streaming query."""


def _self_join(df: DataFrame) -> DataFrame:
    """StateDataSourceTestBase's stream-stream join of a ``MemoryStream[(Int, Long)]`` with
    itself: ids joined within 5 s of event time, the right side only even ids."""
    rows = df.select(F.col("_1").alias("value"), F.timestamp_seconds("_2").alias("timestamp"))
    left = rows.select(F.col("value").alias("leftId"), F.col("timestamp").alias("leftTime"))
    right = rows.where(F.col("value") % 2 == 0).select(
        F.col("value").alias("rightId"), F.col("timestamp").alias("rightTime")
    )
    condition = (
        "rightId = leftId AND rightTime >= leftTime AND rightTime <= leftTime + interval 5 seconds"
    )
    return (
        left.withWatermark("leftTime", "5 seconds")
        .join(right.withWatermark("rightTime", "5 seconds"), F.expr(condition), "inner")
        .select("leftId", F.col("leftTime").cast("int"), "rightId", F.col("rightTime").cast("int"))
    )


_ENCODERS = {"int": "scalaInt", "bigint": "scalaLong", "string": "STRING"}
"""Encoders of the stream's columns: Scala's primitives, as `MemoryStream[(Int, Long)]` has."""


def restart(
    spark: SparkSession,
    checkpoint: Path,
    schema: str,
    query: str,
    output_mode: str,
    rows: tuple[tuple, ...],
    format_version: int = 1,
) -> list[tuple]:
    """Run ``query`` on ``checkpoint`` with ``rows`` as its next batch; the rows it emitted,
    sorted. ``schema``: the stream's column types (``int`` or ``int,bigint``)."""
    types = schema.split(",")
    columns = ["value"] if len(types) == 1 else [f"_{i + 1}" for i in range(len(types))]
    stream = _memory_stream(spark, types)
    for _ in range(_last_offset(checkpoint) + 1):
        stream.addData(_jvm_rows(spark, [], types, columns))
    stream.addData(_jvm_rows(spark, list(rows), types, columns))
    emitted: list[tuple] = []

    def collect(batch: DataFrame, batch_id: int) -> None:
        emitted.extend(tuple(row) for row in batch.collect())

    confs = {CHECKPOINT_FORMAT_CONF: str(format_version), **_recorded_partitions(checkpoint)}
    with session_confs(spark, confs):
        running = (
            QUERIES[query](DataFrame(stream.toDF(), spark))
            .writeStream.outputMode(output_mode)
            .foreachBatch(collect)
            .option("checkpointLocation", str(checkpoint))
            .start()
        )
        try:
            running.processAllAvailable()
        finally:
            running.stop()
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(30_000)
    return sorted(emitted)


def _memory_stream(spark: SparkSession, types: list[str]) -> Any:
    jvm = spark._jvm
    encoders = jvm.org.apache.spark.sql.Encoders
    parts = [getattr(encoders, _ENCODERS[t])() for t in types]
    encoder = parts[0] if len(parts) == 1 else encoders.tuple(*parts)
    memory = jvm.org.apache.spark.sql.execution.streaming.runtime.MemoryStream
    return memory.apply(encoder, spark._jsparkSession)


def _jvm_rows(spark: SparkSession, rows: list[tuple], types: list[str], columns: list[str]) -> Any:
    """``rows`` as a Scala collection of the stream's JVM values."""
    jvm = spark._jvm
    ddl = ", ".join(f"{c} {t}" for c, t in zip(columns, types, strict=True))
    encoders = jvm.org.apache.spark.sql.Encoders
    parts = [getattr(encoders, _ENCODERS[t])() for t in types]
    encoder = parts[0] if len(parts) == 1 else encoders.tuple(*parts)
    frame = spark.createDataFrame(rows, ddl)._jdf
    values = getattr(frame, "as")(encoder).collectAsList()
    return jvm.scala.jdk.javaapi.CollectionConverters.asScala(values)


def _last_entry(checkpoint: Path) -> list[str]:
    """The lines of the last ``offsets/`` entry."""
    entries = [p for p in (checkpoint / "offsets").iterdir() if p.name.isdigit()]
    return max(entries, key=lambda p: int(p.name)).read_text().split("\n")


def _last_offset(checkpoint: Path) -> int:
    """The stream offset of the last batch in ``offsets/``: the index of its last batch."""
    return int(_last_entry(checkpoint)[2])


def _recorded_partitions(checkpoint: Path) -> dict[str, str]:
    """The shuffle partitions the checkpoint records, as the session setting of the restart.
    Spark 4.1+ (SPARK-53942) runs stateless shuffles such as ``repartition`` with the session's
    value: with another value, a pre-3.3 layout partitioned by the repartition's columns would
    be read by the full key instead."""
    conf = json.loads(_last_entry(checkpoint)[1]).get("conf", {})
    key = "spark.sql.shuffle.partitions"
    return {key: conf[key]} if key in conf else {}
