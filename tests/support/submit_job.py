"""A plain PySpark job, as a user submits it to a cluster: it knows nothing of spark-savepoint
and gets the catalog from the ``--conf`` settings ``spark-savepoint conf`` printed. It reads a
state table, fixes two keys and adds one (``MERGE ... INSERT *``), reads it again and prints JSON.

    spark-submit --master local-cluster[2,1,1024] $(spark-savepoint conf CKPT) submit_job.py

Run by tests/system/test_spark_submit.py.
"""

from __future__ import annotations

import json

from pyspark.sql import SparkSession


def main() -> None:
    spark = SparkSession.builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    table = "savepoint.agg_0.default"
    before = sorted(tuple(row)[:3] for row in spark.table(table).collect())
    spark.sql(f"INSERT INTO {table} VALUES ('alice', 10, 100)")
    spark.sql(f"UPDATE {table} SET total = total + 1 WHERE user = 'bob'")
    spark.sql(
        f"MERGE INTO {table} t USING (SELECT 'dave' AS user, 3L AS cnt, 30L AS total) s"
        " ON t.user = s.user WHEN NOT MATCHED THEN INSERT *"
    )
    after = sorted(tuple(row)[:3] for row in spark.table(table).collect())
    executors = spark.sparkContext._jsc.sc().getExecutorIds().size()  # type: ignore[union-attr]
    print(json.dumps({"executors": executors, "before": before, "after": after}))
    spark.stop()


if __name__ == "__main__":
    main()
