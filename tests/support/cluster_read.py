"""Read one state table on ``local-cluster`` (executors in separate JVMs) and print it as JSON.

    python -m tests.support.cluster_read <checkpoint> <uid> <state> [<where>]

With ``<where>``, also prints the rows of the table filtered by it (``lookup``): a filter
that pins the key is answered by a key lookup in the executors.

Run by tests/system/test_cluster.py in a subprocess: a second SparkContext cannot share
the test JVM.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import session  # noqa: E402


def main(checkpoint: str, uid: str, state: str, where: str = "") -> None:
    spark = session(
        checkpoint,
        master="local-cluster[1,1,1024]",
        **{"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    table = spark.table(f"savepoint.{uid}.{state}")
    report = {
        "executors": spark.sparkContext._jsc.sc().getExecutorIds().size(),  # type: ignore[union-attr]
        "rows": [r.asDict(recursive=True) for r in table.collect()],
    }
    if where:
        report["lookup"] = [r.asDict(recursive=True) for r in table.where(where).collect()]
    print(json.dumps(report))
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:5])
