"""A Spark driver that runs upserts on command, for the race test to pit two of them.

    python -m tests.support.race_write

Prints ``ready`` once warm; then for every stdin line ``<checkpoint> <user> <cnt> <total>``
attaches the checkpoint as catalog ``race`` and upserts that row into ``race.agg_0.default``,
printing ``ok`` or the error class it got (``SAVEPOINT_CONCURRENT_WRITE`` for a lost race).
The test knows no query runs on the checkpoint: writes skip the liveness guess.
"""

from __future__ import annotations

import os
import re
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import attach, session  # noqa: E402


def main() -> None:
    spark = session(
        master="local[2]",
        **{
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.warehouse.dir": os.path.join(os.getcwd(), "warehouse"),
            "spark.savepoint.write.force": "true",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(10).count()
    print("ready", flush=True)
    for line in sys.stdin:
        checkpoint, user, cnt, total = line.split()
        try:
            attach(spark, checkpoint, "race")
            spark.sql(f"INSERT INTO race.agg_0.default VALUES ('{user}', {cnt}L, {total}L)")
            print("ok", flush=True)
        except Exception as error:
            found = re.search(r"SAVEPOINT_[A-Z_]+", str(error))
            print(found.group(0) if found else f"ERROR {error!s:.300}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
