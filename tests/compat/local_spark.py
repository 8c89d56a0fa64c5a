"""The plain local SparkSession the version drivers run in (and ``session_confs`` for them).

Imported only by interpreters of the compatibility venvs (any pyspark 3.5+), never by the catalog:
it uses nothing of spark_savepoint.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ["TZ"] = "UTC"  # collected timestamps become naive datetimes in the process's zone
time.tzset()

from pyspark.sql import SparkSession  # noqa: E402

from tests.support.streaming_queries import session_confs  # noqa: E402, F401 - re-exported

CHECKPOINT_FORMAT_CONF = "spark.sql.streaming.stateStore.checkpointFormatVersion"
"""State store checkpoint format: 2 keeps unique ids of RocksDB state versions (Spark 4.1+)."""


def local_session() -> SparkSession:
    """A ``local[2]`` session without UI or progress bars, logging errors only."""
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("spark-savepoint-compat")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_version() -> tuple[int, int]:
    """The running pyspark's (major, minor)."""
    import pyspark

    major, minor = pyspark.__version__.split(".")[:2]
    return int(major), int(minor)
