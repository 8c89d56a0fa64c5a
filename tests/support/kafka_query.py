"""A stateful streaming query on a Kafka topic, in its own Spark driver with the Kafka connector.

    python -m tests.support.kafka_query BOOTSTRAP TOPIC CHECKPOINT OUT_JSON [--produce P:K:V ...]
    python -m tests.support.kafka_query --spark-json JSON [JSON ...]

The first form writes the ``--produce`` rows (partition, key, value) to the topic, then counts
the topic's values by word (``groupBy(value).count()``, update mode, ``foreachBatch``,
``availableNow``) from ``startingOffsets=earliest`` with the given checkpoint, and writes
``out_json``: ``[{"batch": <id>, "rows": {<word>: <count>}}, ...]`` for the batches of this run.
The second form prints, one line per argument, Spark's own serialization of a Kafka source
offset (``JsonUtils.partitionOffsets``, parsed then written again).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

from tests.support.kafka import connector_jars, produce  # noqa: E402


def kafka_session() -> Any:
    """A ``local[2]`` SparkSession with Spark's Kafka connector on its classpath."""
    from pyspark.sql import SparkSession

    jars = ",".join(str(jar) for jar in connector_jars())
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("kafka_query")
        .config("spark.jars", jars)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def count_words(spark: Any, bootstrap: str, topic: str, checkpoint: str) -> list[dict]:
    """Run the word count on ``topic`` until it has read what is there; this run's batches."""
    from pyspark.sql.functions import col

    batches: list[dict] = []

    def collect(frame: Any, batch_id: int) -> None:
        rows = {row["word"]: row["count"] for row in frame.collect()}
        batches.append({"batch": batch_id, "rows": rows})

    source = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
    )
    counts = source.groupBy(col("value").cast("string").alias("word")).count()
    query = (
        counts.writeStream.outputMode("update")
        .foreachBatch(collect)
        .trigger(availableNow=True)
        .option("checkpointLocation", checkpoint)
        .start()
    )
    query.awaitTermination()
    return batches


def spark_json(spark: Any, offsets: str) -> str:
    """Spark's serialization of a Kafka source offset: ``offsets`` parsed into a
    ``Map[TopicPartition, Long]`` and written again by the connector's ``JsonUtils``."""
    utils = spark._jvm.org.apache.spark.sql.kafka010.JsonUtils
    return utils.partitionOffsets(utils.partitionOffsets(offsets))


def parse_row(text: str) -> tuple[int, str, str]:
    """``P:K:V`` as ``(partition, key, value)``; the value may hold colons."""
    partition, key, value = text.split(":", 2)
    return int(partition), key, value


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.support.kafka_query")
    parser.add_argument("bootstrap")
    parser.add_argument("topic")
    parser.add_argument("checkpoint")
    parser.add_argument("out_json", type=Path)
    parser.add_argument("--produce", nargs="+", type=parse_row, default=[], metavar="P:K:V")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run one of the two command-line forms in the module docstring."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--spark-json"] and argv[1:]:
        spark = kafka_session()
        for offsets in argv[1:]:
            print(spark_json(spark, offsets), flush=True)
        spark.stop()
        return 0
    args = _arguments(argv)
    spark = kafka_session()
    if args.produce:
        produce(spark, args.bootstrap, args.topic, args.produce)
    batches = count_words(spark, args.bootstrap, args.topic, args.checkpoint)
    args.out_json.write_text(json.dumps(batches, sort_keys=True) + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
