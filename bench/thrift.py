"""Latency of the Thrift server, warm: JDBC metadata calls and small queries, vs. in-process.

    python bench/thrift.py [--keys 1000] [--repeat 20] [--dir bench/out]

Starts ``spark-savepoint thriftserver`` in-process (read-only, local[2]) over a keyed
aggregation state, connects with PyHive over loopback, warms up once, then prints the median of
``--repeat`` runs for GetSchemas, GetTables, GetColumns, a query of the metadata view, a small
scan of a state view and a key lookup in it, and the same key lookup run in the server's own
session (``spark.sql(...).collect()``), the two alternating. Last, one line per goal: each call
under 300 ms, and the key lookup over Thrift at most 1.5x the same query in-process.
"""

from __future__ import annotations

import shutil
import socket
import statistics
import sys
import tempfile
from pathlib import Path

from common import bench_parser, build_keyed_state, median_seconds

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.servers.thrift import create_session, start

GOAL_SECONDS = 0.3
GOAL_RATIO = 1.5
SMALL_QUERY = "SELECT * FROM savepoint.agg_0.default WHERE key = 7"
SCAN_QUERY = "SELECT count(*) FROM savepoint_agg_0.default WHERE count > 0"


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
    parser = bench_parser(__doc__, keys=1000, repeat=20)
    args = parser.parse_args()

    # this script is named like the Thrift package PyHive imports: drop its folder from the path
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    from pyhive import hive
    from TCLIService import ttypes

    checkpoint = Path(args.dir) / f"agg-hdfs-{args.keys}" / "checkpoint"
    state_dir = tempfile.mkdtemp(prefix="spark-savepoint-bench-")
    catalogs = {"savepoint": str(checkpoint)}
    spark = create_session(
        catalogs,
        state_dir=state_dir,
        master="local[2]",
        conf={"spark.sql.shuffle.partitions": "4", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    builder = spark.newSession()  # writes the checkpoint: exempt from the read-only guard
    bridge.exempt_from_read_only(builder)
    build_keyed_state(builder, Path(args.dir), "hdfs", args.keys)
    port = _free_port()
    server = start(spark, catalogs, port=port, state_dir=state_dir)
    cursor = hive.connect(host="127.0.0.1", port=port).cursor()
    calls = {
        "GetSchemas": lambda: _metadata(cursor, ttypes.TGetSchemasReq()),
        "GetTables": lambda: _metadata(cursor, ttypes.TGetTablesReq(schemaName="savepoint_agg_0")),
        "GetColumns": lambda: _metadata(
            cursor, ttypes.TGetColumnsReq(schemaName="savepoint_agg_0", tableName="default")
        ),
        "SELECT * FROM savepoint.metadata": lambda: _query(
            cursor, "SELECT * FROM savepoint.metadata"
        ),
        SCAN_QUERY: lambda: _query(cursor, SCAN_QUERY),
        SMALL_QUERY: lambda: _query(cursor, SMALL_QUERY),
    }
    medians = {}
    try:
        for name, call in calls.items():
            if name == SMALL_QUERY:
                continue
            call()  # warm
            medians[name] = median_seconds(call, args.repeat)
            print(f"{name:45s} median {medians[name] * 1000:8.1f} ms (n={args.repeat})")
        thrift, local = _side_by_side(
            calls[SMALL_QUERY], lambda: spark.sql(SMALL_QUERY).collect(), args.repeat
        )
        medians[SMALL_QUERY] = thrift
        print(f"{SMALL_QUERY:45s} median {thrift * 1000:8.1f} ms over Thrift")
        print(f"{SMALL_QUERY:45s} median {local * 1000:8.1f} ms in-process")
    finally:
        cursor._connection.close()
        server.stop()
        spark.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
    slowest = max(medians, key=medians.get)
    print(
        f"slowest warm call over Thrift: {medians[slowest] * 1000:.1f} ms, {slowest}"
        f" (goal <= {GOAL_SECONDS * 1000:.0f} ms)"
    )
    print(f"ratio small state query Thrift/in-process: {thrift / local:.2f} (goal <= {GOAL_RATIO})")


def _side_by_side(first, second, repeat: int) -> tuple[float, float]:  # noqa: ANN001
    """Medians of ``repeat`` runs of two calls, alternating, after one warm-up each."""
    first(), second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        times[0].append(median_seconds(first, 1))
        times[1].append(median_seconds(second, 1))
    return statistics.median(times[0]), statistics.median(times[1])


if __name__ == "__main__":
    main()
