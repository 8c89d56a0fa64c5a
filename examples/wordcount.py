"""The streaming query the examples read and edit: a word count over JSON event files.

Each file in ``events/`` is one micro-batch (``maxFilesPerTrigger=1``); the query runs with
``Trigger.AvailableNow`` and stops when it has read every file. Its state, per word: Spark's
aggregation buffers ``count`` and ``sum``, which the catalog names ``seen`` and ``letters`` as
the query does (the query recorded its names in the checkpoint: it runs with spark-savepoint's
settings).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from spark_savepoint import session  # noqa: E402


def example_session() -> SparkSession:
    """A local session with the catalog's jar; small and quiet."""
    spark = session(**{
        "spark.sql.shuffle.partitions": "4",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.streaming.noDataMicroBatches.enabled": "false",
    })  # fmt: skip
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def write_events(folder: Path, words: list[str]) -> None:
    """One more input file (= one more micro-batch) of words."""
    folder.mkdir(parents=True, exist_ok=True)
    batch = len(list(folder.glob("events-*.json")))
    with open(folder / f"events-{batch}.json", "w") as out:
        for word in words:
            out.write(json.dumps({"word": word, "n": len(word)}) + "\n")


def run_word_count(spark: SparkSession, events: Path, checkpoint: Path) -> dict[str, tuple]:
    """Run (or restart) the query until it has read every file; returns its last output per
    word: {word: (seen, letters)}."""
    output: dict[str, tuple] = {}

    def collect(batch, _batch_id: int) -> None:
        for row in batch.collect():
            output[row.word] = (row.seen, row.letters)

    counts = (
        spark.readStream.schema("word STRING, n BIGINT")
        .option("maxFilesPerTrigger", 1)
        .json(str(events))
        .groupBy("word")
        .agg(F.count("*").alias("seen"), F.sum("n").alias("letters"))
    )
    query = (
        counts.writeStream.outputMode("update")
        .foreachBatch(collect)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return output


def run_example(main: Callable[[Path], None], doc: str, prefix: str) -> None:
    """Command line of an example: ``--dir DIR`` (default: a new temp folder), then ``main``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--dir", help="folder to build the checkpoint in (default: a temp folder)")
    folder = parser.parse_args().dir
    main(Path(folder or tempfile.mkdtemp(prefix=f"spark-savepoint-{prefix}-")))


def show(spark: SparkSession, sql: str) -> None:
    print(f"\nspark-sql> {sql};")
    spark.sql(sql).show(truncate=False)
