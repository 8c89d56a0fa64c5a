"""JDBC latency of the Thrift server: metadata calls and small queries, warm.

    python bench/thrift.py [--keys 1000] [--repeat 20] [--dir bench/out]

Starts ``spark-savepoint thriftserver`` in-process (read-only, local[2]) over a keyed
aggregation state, connects with PyHive over loopback, warms up once, then prints the median of
``--repeat`` runs for GetSchemas, GetTables, GetColumns, a query of the metadata view and a small
query of a state view; the goal (each under 300 ms) is printed last.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from common import build_keyed_state, median_seconds

from sql_ext.thrift import create_session, start

# This file's folder comes first on sys.path and this file is named like the `thrift` package
# that PyHive imports: drop the folder before importing PyHive.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent]

GOAL_SECONDS = 0.3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _metadata(cursor, request) -> list:
    """A HiveServer2 metadata call through PyHive's thrift client, rows fetched."""
    connection = cursor._connection
    request.sessionHandle = connection._sessionHandle
    response = getattr(connection.client, type(request).__name__[1:-3])(request)
    assert response.status.statusCode == 0, response.status.errorMessage
    cursor._reset_state()
    cursor._state = cursor._STATE_RUNNING
    cursor._operationHandle = response.operationHandle
    return cursor.fetchall()


def _query(cursor, sql: str) -> list:
    cursor.execute(sql)
    return cursor.fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--dir", default=str(Path(__file__).parent / "out"))
    args = parser.parse_args()

    from pyhive import hive
    from TCLIService import ttypes

    checkpoint = Path(args.dir) / f"agg-hdfs-{args.keys}" / "checkpoint"
    state_dir = tempfile.mkdtemp(prefix="spark-savepoint-bench-")
    catalogs = {"savepoint": str(checkpoint)}
    spark = create_session(catalogs, state_dir=state_dir, master="local[2]", conf={
        "spark.sql.shuffle.partitions": "4", "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    builder = spark.newSession()  # writes the checkpoint: exempt from the read-only guard
    spark._jvm.dev.sparksavepoint.PythonEntry.exemptFromReadOnly(builder._jsparkSession)
    build_keyed_state(builder, Path(args.dir), "hdfs", args.keys)
    port = _free_port()
    server = start(spark, catalogs, port=port, state_dir=state_dir)
    cursor = hive.connect(host="127.0.0.1", port=port, database="savepoint").cursor()
    calls = {
        "GetSchemas": lambda: _metadata(cursor, ttypes.TGetSchemasReq()),
        "GetTables": lambda: _metadata(cursor, ttypes.TGetTablesReq(schemaName="savepoint")),
        "GetColumns": lambda: _metadata(cursor, ttypes.TGetColumnsReq(
            schemaName="savepoint", tableName="agg_0_default")),
        "SELECT * FROM savepoint.metadata": lambda: _query(
            cursor, "SELECT * FROM savepoint.metadata"),
        "SELECT * FROM agg_0_default WHERE key = 7": lambda: _query(
            cursor, "SELECT * FROM agg_0_default WHERE key = 7"),
    }
    medians = {}
    try:
        for name, call in calls.items():
            call()  # warm
            medians[name] = median_seconds(call, args.repeat)
            print(f"{name:45s} median {medians[name] * 1000:8.1f} ms (n={args.repeat})")
    finally:
        cursor._connection.close()
        server.stop()
        spark.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
    slowest = max(medians, key=medians.get)
    verdict = "met" if medians[slowest] < GOAL_SECONDS else "NOT met"
    print(f"goal: each under {GOAL_SECONDS * 1000:.0f} ms warm -> {verdict} "
          f"(slowest: {slowest}, {medians[slowest] * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
