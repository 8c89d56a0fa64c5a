"""Attach a checkpoint to a plain, already running SparkSession (no spark-savepoint settings,
as in a notebook or a ``spark-submit`` job), read and edit it, and print what happened as JSON.

    python -m tests.support.plain_session <checkpoint> <master>

Run by tests/system/test_plain_session.py in a subprocess: the session must be created before
spark_savepoint is imported, in a JVM of its own.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from pyspark.sql import SparkSession  # noqa: E402

EDITS = [
    "INSERT INTO sp.agg_0.default VALUES ('zed', 5, 50)",
    "DELETE FROM sp.agg_0.default WHERE user = 'bob'",
    "UPDATE sp.agg_0.default SET cnt = 100, total = 1000 WHERE user = 'alice'",
    "MERGE INTO sp.agg_0.default t USING (SELECT 'carol' AS user) s ON t.user = s.user "
    "WHEN MATCHED THEN UPDATE SET total = 98",
    "MERGE INTO sp.agg_0.default t USING (SELECT 'wes' AS user, 3L AS cnt, 30L AS total) s "
    "ON t.user = s.user WHEN NOT MATCHED THEN INSERT *",
]


def main(checkpoint: str, master: str) -> None:
    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    from spark_savepoint import attach, last_edit

    attach(spark, checkpoint, "sp")
    spark.conf.set("spark.savepoint.write.force", "true")
    table = spark.table("sp.agg_0.default")
    report: dict = {
        "executors": spark.sparkContext._jsc.sc().getExecutorIds().size(),  # type: ignore[union-attr]
        "columns": table.columns,
        "before": sorted(tuple(r) for r in table.collect()),
        "lookup": [tuple(r) for r in table.where("user = 'alice'").collect()],
        "batches": [],
        "listeners": sorted(
            str(listener.getClass().getName())
            for listener in spark._jsparkSession.streams().listListeners()  # type: ignore[union-attr]
        ),
    }
    for statement in EDITS:
        spark.sql(statement)
        report["batches"].append(last_edit(spark).batch_id)  # type: ignore[union-attr]
    df = spark.createDataFrame([("yan", 1, 7)], "user string, cnt int, total int")
    df.writeTo("sp.agg_0.default").append()
    report["batches"].append(last_edit(spark).batch_id)  # type: ignore[union-attr]
    report["after"] = sorted(tuple(r) for r in spark.table("sp.agg_0.default").collect())
    functions = f"SELECT uid, state FROM savepoint_metadata('{checkpoint}') WHERE uid = 'agg_0'"
    report["metadata"] = [tuple(r) for r in spark.sql(functions).collect()]
    print(json.dumps(report))
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:3])
