"""A large upsert into a checkpoint, in its own Spark driver, for the crash test to kill.

    python -m tests.crash_write <keys>

Starts a session with the spark-savepoint jar, warms it up and prints ``ready``; then reads a
checkpoint path (a copy of the ``agg`` query's) from stdin, attaches it as catalog ``crash`` and
upserts ``<keys>`` new users (``k0``, ``k1``, ...) plus ``alice`` with count 100 and sum 1000 into
``crash.agg_0.default``, so that a leaked edit shows in the restarted query's output. Prints
``written`` when the write has committed; ``tests/test_write_crash.py`` kills the process and
its JVM with SIGKILL before that. Starting the driver before the checkpoint exists lets the test
overlap the driver's start-up with its own work.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from sql_ext import attach, session  # noqa: E402

CATALOG = "crash"
TABLE = f"{CATALOG}.agg_0.default"


def upsert(keys: int) -> str:
    """The statement: ``keys`` new users, and alice's counters set to 100 and 1000."""
    return (f"INSERT INTO {TABLE} SELECT concat('k', id), id, id FROM range({keys})"
            " UNION ALL SELECT 'alice', 100L, 1000L")


def main(keys: int) -> None:
    spark = session(master="local[2]", **{
        "spark.sql.shuffle.partitions": "4",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.warehouse.dir": os.path.join(os.getcwd(), "warehouse"),
    })
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(1000).selectExpr("concat('k', id) AS user").repartition(4, "user").count()
    print("ready", flush=True)
    checkpoint = sys.stdin.readline().strip()
    attach(spark, checkpoint, CATALOG)
    spark.sql(upsert(keys))
    print("written", flush=True)
    spark.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]))
