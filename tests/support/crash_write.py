"""An upsert into a checkpoint, in its own Spark driver, that halts its JVM at a crash point.

    python -m tests.support.crash_write <keys>

Starts a session with the spark-savepoint jar, warms it up and prints ``ready``; then reads one
line ``<checkpoint> <point> <statement> [<target>]`` from stdin, asks the JVM to halt at
``point`` (a ``CrashPoint`` of the commit protocol: ``Runtime.halt``, as abrupt as ``kill -9``),
attaches the checkpoint (a copy of the ``agg`` query's) as catalog ``crash`` and runs the
statement:

* ``upsert``: ``<keys>`` new users (``k0``, ``k1``, ...) plus ``alice`` with count 100 and sum
  1000, so that a leaked edit shows in the restarted query's output;
* ``duplicate``: the same with one key given twice, which fails in the tasks and rolls back;
* ``overwrite``: the same state as ``upsert`` leaves, written whole by INSERT OVERWRITE (full
  images in a staging folder, moved into place around the commit);
* ``restore``: restores the checkpoint (a savepoint) into ``<target>`` onto 8 partitions;
* ``transaction``: the upsert as the one statement of an edit transaction (``edit``): the
  halt comes in the transaction's commit;
* ``rewind``: sets file source 0 back to before its log entry 1 (a checkpoint of a file
  source query): an edit that commits two batches.

Prints ``written`` (or the error class) when the statement ends without reaching the point.
The test's process started this driver before the checkpoint existed; it knows no query runs
on it, so the write skips the liveness guess (``spark.savepoint.write.force``).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import attach, edit, restore_savepoint, session  # noqa: E402
from spark_savepoint.catalog import bridge  # noqa: E402

CATALOG = "crash"
TABLE = f"{CATALOG}.agg_0.default"


def statement(kind: str, keys: int) -> str:
    """The upsert: ``keys`` new users and alice's counters set to 100 and 1000; ``duplicate``
    gives user ``k0`` twice."""
    extra = " UNION ALL SELECT 'k0', 1L, 1L" if kind == "duplicate" else ""
    if kind == "overwrite":
        extra = f" UNION ALL SELECT user, cnt, total FROM {TABLE} WHERE user != 'alice'"
    verb = "INSERT OVERWRITE" if kind == "overwrite" else "INSERT INTO"
    return (
        f"{verb} {TABLE} SELECT concat('k', id), id, id FROM range({keys})"
        f" UNION ALL SELECT 'alice', 100L, 1000L{extra}"
    )


def main(keys: int) -> None:
    spark = session(
        master="local[2]",
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.warehouse.dir": os.path.join(os.getcwd(), "warehouse"),
            "spark.savepoint.write.force": "true",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(1000).selectExpr("concat('k', id) AS user").repartition(4, "user").count()
    print("ready", flush=True)
    checkpoint, point, kind, *target = sys.stdin.readline().split()
    bridge.arm_crash_point(spark, point)
    try:
        if kind == "restore":
            restore_savepoint(spark, checkpoint, target[0], partitions=8)
        elif kind == "rewind":
            attach(spark, checkpoint, CATALOG)
            spark.sql(f"UPDATE {CATALOG}.sources.offsets SET offset = 0 WHERE source_id = 0")
        elif kind == "transaction":
            attach(spark, checkpoint, CATALOG)
            with edit(spark) as tx:
                tx.sql(statement("upsert", keys))
        else:
            attach(spark, checkpoint, CATALOG)
            spark.sql(statement(kind, keys))
        print("written", flush=True)
    except Exception as error:  # the duplicate key, when the point is not reached
        print(str(error).split("]")[1].strip("[ ") if "]" in str(error) else error, flush=True)
    spark.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]))
