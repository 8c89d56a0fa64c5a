"""Read one state table on ``local-cluster`` (executors in separate JVMs) and print it as JSON.

    python -m tests.support.cluster_read <checkpoint> <uid> <state>

Run by tests/system/test_cluster.py in a subprocess: a second SparkContext cannot share
the test JVM.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import session  # noqa: E402


def main(checkpoint: str, uid: str, state: str) -> None:
    spark = session(
        checkpoint,
        master="local-cluster[1,1,1024]",
        **{"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    rows = spark.table(f"savepoint.{uid}.{state}").collect()
    executors = spark.sparkContext._jsc.sc().getExecutorIds().size()  # type: ignore[union-attr]
    print(json.dumps({"executors": executors, "rows": [r.asDict(recursive=True) for r in rows]}))
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])
