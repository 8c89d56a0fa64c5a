"""Quick start: run a real stateful streaming query, then read its state with SQL.

    python examples/quickstart.py [--dir DIR]

Builds a word-count checkpoint (two micro-batches) in DIR (a temp folder by default), attaches
it as the catalog ``savepoint`` and shows the namespaces, tables, state and metadata.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark.sql import functions as F  # noqa: E402

from sql_ext import attach, session  # noqa: E402


def write_events(folder: Path, batch: int, words: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"events-{batch}.json", "w") as out:
        for word in words:
            out.write(json.dumps({"word": word, "n": len(word)}) + "\n")


def run_word_count(spark, events: Path, checkpoint: Path) -> None:
    """A streaming aggregation: count and total length per word, one file per micro-batch."""
    counts = (
        spark.readStream.schema("word STRING, n BIGINT")
        .option("maxFilesPerTrigger", 1)
        .json(str(events))
        .groupBy("word")
        .agg(F.count("*").alias("seen"), F.sum("n").alias("letters"))
    )
    query = (
        counts.writeStream.outputMode("update")
        .format("noop")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()


def main(folder: str | None = None) -> int:
    root = Path(folder or tempfile.mkdtemp(prefix="spark-savepoint-quickstart-"))
    events, checkpoint = root / "events", root / "checkpoint"
    write_events(events, 0, ["spark", "state", "spark"])
    write_events(events, 1, ["savepoint", "spark"])

    spark = session(**{"spark.sql.shuffle.partitions": "4", "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    run_word_count(spark, events, checkpoint)
    attach(spark, str(checkpoint))  # now readable as savepoint.<uid>.<state>

    for sql in [
        "SHOW NAMESPACES IN savepoint",
        "SHOW TABLES IN savepoint.agg_0",
        "DESCRIBE savepoint.agg_0.default",
        "SELECT * FROM savepoint.agg_0.default ORDER BY word",
        "SELECT * FROM savepoint.agg_0.default VERSION AS OF 0 ORDER BY word",
        "SELECT uid, state, state_kind, key_schema, value_schema, provider, max_batch_id "
        "FROM savepoint.metadata",
    ]:
        print(f"\nspark-sql> {sql};")
        spark.sql(sql).show(truncate=False)
    print(f"checkpoint: {checkpoint}")
    spark.stop()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="folder to build the checkpoint in (default: a temp folder)")
    sys.exit(main(parser.parse_args().dir))
