"""Small real queries over the file and rate sources, for the tests of the query-log tables
(``sources.offsets``, ``sources.files``, ``query.batches``, ``sink.files``), of rewinds and of
watermark edits."""

from __future__ import annotations

import json
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from tests.support.streaming_queries import wait_for_listeners


def write_json(folder: Path, name: str, keys: list[int]) -> None:
    """One input file of rows ``{"k": key, "v": key * 10}``."""
    (folder / name).write_text("\n".join(json.dumps({"k": k, "v": k * 10}) for k in keys))


def json_stream(spark: SparkSession, source: Path) -> DataFrame:
    return spark.readStream.schema("k INT, v INT").json(str(source))


def run_file_dedup(spark: SparkSession, source: Path, output: Path, checkpoint: Path) -> None:
    """dropDuplicates over JSON files into a parquet file sink, until it has read everything."""
    query = (
        json_stream(spark, source).dropDuplicates(["k"]).writeStream.format("parquet")
        .option("path", str(output)).option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True).start()
    )  # fmt: skip
    query.awaitTermination()
    wait_for_listeners(spark)


def run_file_count(spark: SparkSession, source: Path, checkpoint: Path) -> None:
    """A count per key over JSON files, until it has read everything (one batch per run)."""
    query = (
        json_stream(spark, source).groupBy("k").count()
        .writeStream.format("noop").outputMode("update")
        .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start()
    )  # fmt: skip
    query.awaitTermination()
    wait_for_listeners(spark)


def write_events(folder: Path, name: str, times: list[str]) -> None:
    """One input file of events ``{"ts": time}`` (times as ``2024-01-01 10:00:01``)."""
    (folder / name).write_text("\n".join(json.dumps({"ts": t}) for t in times))


def run_windowed_count(spark: SparkSession, source: Path, output: Path, checkpoint: Path) -> None:
    """Events per 10-second window with a 10-second watermark, one input file per batch, into
    a parquet file sink (append mode: a window is written once the watermark passes its end),
    until it has read everything."""
    events = (
        spark.readStream.schema("ts TIMESTAMP").option("maxFilesPerTrigger", 1).json(str(source))
    )
    query = (
        events.withWatermark("ts", "10 seconds").groupBy(F.window("ts", "10 seconds")).count()
        .select(F.col("window.start").alias("start"), "count")
        .writeStream.format("parquet").outputMode("append").option("path", str(output))
        .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start()
    )  # fmt: skip
    query.awaitTermination()
    wait_for_listeners(spark)


def rate_stream(spark: SparkSession, rows_per_second: int = 5) -> DataFrame:
    return spark.readStream.format("rate").option("rowsPerSecond", rows_per_second).load()


def count_until(spark: SparkSession, stream: DataFrame, key, checkpoint: Path,
                batches: int) -> None:  # fmt: skip
    """A count per ``key`` of ``stream``, until ``batches`` batches of this run committed."""
    done = committed(checkpoint)
    query = (
        stream.groupBy(key.alias("k")).count()
        .writeStream.format("noop").outputMode("update")
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="200 milliseconds").start()
    )  # fmt: skip
    try:
        while committed(checkpoint) < done + batches:
            query.awaitTermination(0.2)
    finally:
        query.stop()
        wait_for_listeners(spark)


def committed(checkpoint: Path) -> int:
    """How many batches ``commits/`` holds."""
    return len(list((checkpoint / "commits").glob("[0-9]*"))) if checkpoint.exists() else 0
