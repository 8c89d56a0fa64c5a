"""``spark-savepoint thriftserver`` through real JDBC clients (PyHive, beeline) over loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from spark_savepoint import attach
from spark_savepoint.catalog.jar import pyspark_jars
from spark_savepoint.sql_ext.servers.views import select_sql, state_schema
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import build, restart_rows
from tests.support.thrift_server import PASSWORD, USER, Server, login

WINDOW_COLUMNS = ["window_start", "window_end", "user", "count", "partition_id"]


@pytest.fixture()
def cursor(server: Server) -> Iterator:
    connection = login(server)
    yield connection.cursor()
    connection.close()


def _metadata(cursor, request) -> list[tuple]:
    """Run a HiveServer2 metadata call (GetSchemas/GetTables/GetColumns) and fetch its rows."""
    connection = cursor._connection
    request.sessionHandle = connection._sessionHandle
    call = getattr(connection.client, type(request).__name__[1:-3])
    response = call(request)
    assert response.status.statusCode == 0, response.status.errorMessage
    cursor._reset_state()
    cursor._state = cursor._STATE_RUNNING
    cursor._operationHandle = response.operationHandle
    return cursor.fetchall()


@pytest.mark.slow
def test_server_prints_url_and_views(server: Server) -> None:
    assert server.url == f"jdbc:hive2://127.0.0.1:{server.port}/default"
    assert any("join_join_0.left_keytonumvalues" in line for line in server.lines)
    assert any(line.strip().startswith("read-only") for line in server.lines)
    assert f"  login: user {USER} and the password in {server.password_file} (beeline -n USER " \
        "-p ...)" in server.lines  # fmt: skip
    assert oct(server.password_file.stat().st_mode & 0o777) == oct(0o600)


@pytest.mark.slow
@pytest.mark.parametrize("credential", [
    {},  # PyHive's default: SASL PLAIN with a made-up password
    {"username": USER, "password": "wrong", "auth": "CUSTOM"},
    {"username": "someone", "password": PASSWORD, "auth": "CUSTOM"},
], ids=["no-password", "wrong-password", "wrong-user"])  # fmt: skip
def test_pyhive_without_the_password_is_refused(server: Server, credential: dict) -> None:
    """HiveServer2's CUSTOM authentication with the jar's PasswordFileAuthenticator refuses the
    SASL handshake: no session is opened."""
    from pyhive import hive
    from thrift.transport.TTransport import TTransportException

    with pytest.raises(TTransportException) as refused:
        hive.connect(host="127.0.0.1", port=server.port, **credential)
    assert "Error validating the login" in str(refused.value), refused.value


@pytest.mark.slow
def test_beeline_without_the_password_is_refused(server: Server) -> None:
    for credential in ([], ["-n", USER, "-p", "wrong"]):
        result = _beeline(server, [*credential, "-e", "SELECT 1"])
        assert result.returncode != 0, result.stdout
        assert "Error validating the login" in result.stdout + result.stderr, result.stderr[-2000:]


@pytest.mark.slow
def test_metadata_calls_list_views_with_flat_typed_columns(cursor) -> None:
    from TCLIService import ttypes

    schemas = {row[0] for row in _metadata(cursor, ttypes.TGetSchemasReq())} - {"global_temp"}
    assert schemas == {
        "default", "savepoint_metadata", "savepoint_agg_0", "savepoint_sources",
        "savepoint_query", "join_metadata", "join_join_0", "join_sources", "join_query",
        "live_metadata", "live_agg_0", "live_sources", "live_query",
    }, "no database is named like a catalog (savepoint, join, live)"  # fmt: skip
    tables = _metadata(cursor, ttypes.TGetTablesReq(schemaName="savepoint_%"))
    assert {(row[1], row[2], row[3]) for row in tables} == {
        ("savepoint_agg_0", "default", "VIEW"), ("savepoint_metadata", "metadata", "VIEW"),
        ("savepoint_sources", "offsets", "VIEW"), ("savepoint_sources", "files", "VIEW"),
        ("savepoint_query", "batches", "VIEW"),
        ("savepoint_query", "edits", "VIEW"),
    }  # fmt: skip
    join = {row[2] for row in _metadata(cursor, ttypes.TGetTablesReq(schemaName="join_join_0"))}
    assert join == {
        "left", "right", "left_keytonumvalues", "left_keywithindextovalue",
        "right_keytonumvalues", "right_keywithindextovalue",
    }  # fmt: skip
    columns = _metadata(
        cursor, ttypes.TGetColumnsReq(schemaName="savepoint_agg_0", tableName="default")
    )
    assert [(row[3], row[5]) for row in columns] == [
        ("window_start", "TIMESTAMP"),
        ("window_end", "TIMESTAMP"),
        ("user", "STRING"),
        ("count", "BIGINT"),
        ("partition_id", "INT"),
    ]


@pytest.mark.slow
def test_pyhive_query_matches_the_catalog(cursor, spark, checkpoints) -> None:
    from spark_savepoint import attach

    attach(spark, str(checkpoints[("window_agg", "hdfs")].checkpoint), "thrift_window")
    table = "thrift_window.agg_0.default"
    expected = sorted(
        tuple(row) for row in spark.sql(select_sql(table, state_schema(spark, table))).collect()
    )
    cursor.execute("SELECT * FROM savepoint_agg_0.default")
    assert [column[0] for column in cursor.description] == WINDOW_COLUMNS
    assert sorted(cursor.fetchall()) == expected
    assert {row[2] for row in expected} == {"alice", "bob", "carol"}


@pytest.mark.slow
def test_the_catalog_names_work_over_jdbc(cursor, spark, checkpoints) -> None:
    """``savepoint.<uid>.<state>``, ``savepoint.`<id>`.<state>`` and ``SHOW TABLES IN
    savepoint.<uid>`` mean over the Thrift server what they mean in PySpark."""
    attach(spark, str(checkpoints[("window_agg", "hdfs")].checkpoint), "thrift_names")
    flat = "SELECT `window`.start, user, count FROM {} VERSION AS OF 1 ORDER BY 1, 2"
    expected = [tuple(r) for r in spark.sql(flat.format("thrift_names.agg_0.default")).collect()]
    for table in ("savepoint.agg_0.default", "savepoint.`0`.default"):
        cursor.execute(flat.format(table))
        assert [(str(a), b, c) for a, b, c in cursor.fetchall()] == [
            (str(a), b, c) for a, b, c in expected
        ]  # fmt: skip
    cursor.execute("SHOW TABLES IN savepoint.agg_0")
    assert [tuple(row) for row in cursor.fetchall()] == [("agg_0", "default", False)]
    cursor.execute("SHOW NAMESPACES IN join")
    assert ("join_0",) in cursor.fetchall()


@pytest.mark.slow
def test_a_connection_into_the_catalog_keeps_to_itself(server: Server, cursor) -> None:
    """A JDBC URL ending in a catalog's name makes that catalog current for that connection
    only: other connections still start in ``default``."""
    into = login(server, database="savepoint")
    try:
        inside = into.cursor()
        inside.execute("SELECT current_catalog()")
        assert inside.fetchall() == [("savepoint",)]
        inside.execute("SELECT user FROM agg_0.default ORDER BY user")
        assert inside.fetchall() == [("alice",), ("bob",), ("carol",)]
        cursor.execute("SELECT current_catalog(), current_database()")
        assert cursor.fetchall() == [("spark_catalog", "default")]
        cursor.execute("SELECT count(*) FROM savepoint_agg_0.default")
        assert cursor.fetchall() == [(3,)]
    finally:
        into.close()


@pytest.mark.slow
def test_metadata_view_over_jdbc(cursor) -> None:
    cursor.execute("SELECT view_name, table_name, state_kind FROM savepoint_metadata.metadata")
    assert cursor.fetchall() == [
        ("savepoint_agg_0.default", "savepoint.agg_0.default", "aggregation"),
        ("savepoint_sources.offsets", "savepoint.sources.offsets", "operator state"),
        ("savepoint_sources.files", "savepoint.sources.files", "operator state"),
        ("savepoint_query.batches", "savepoint.query.batches", "operator state"),
        ("savepoint_query.edits", "savepoint.query.edits", "operator state"),
    ]
    cursor.execute("SELECT count(*) FROM join.metadata WHERE state_kind != 'operator state'")
    assert cursor.fetchall() == [(6,)]
    cursor.execute("SELECT source, `offset` FROM savepoint_sources.offsets")
    assert cursor.fetchall() == [("file", 1)]


@pytest.mark.slow
@pytest.mark.parametrize("statement", [
    "CREATE TABLE t (a INT)",
    "DROP VIEW savepoint_metadata.metadata",
    "INSERT INTO savepoint.agg_0.default SELECT * FROM savepoint.agg_0.default",
    "CREATE TEMPORARY VIEW v AS SELECT 1",
    "SET spark.savepoint.readOnly=false",
    "CALL savepoint.system.take_savepoint('/tmp/never-written')",
    "UPDATE savepoint.agg_0.default SET count = 1",
    "UPDATE savepoint.sources.offsets SET offset = 0",
    "UPDATE savepoint.query.batches SET watermark_ms = 1",
    "DELETE FROM savepoint.sources.files",
])  # fmt: skip
def test_writes_are_refused_by_default(cursor, statement: str) -> None:
    from pyhive.exc import OperationalError

    with pytest.raises(OperationalError) as refused:
        cursor.execute(statement)
    message = str(refused.value)
    assert "[SAVEPOINT_READ_ONLY]" in message and "--allow-writes" in message
    assert "RelationV2" not in message and "Caused by" not in message, "no plan, no trace"
    cursor.execute("SELECT count(*) FROM savepoint.metadata")
    assert cursor.fetchall() == [(5,)]
    cursor.execute("SELECT count(*) FROM savepoint_metadata.metadata")
    assert cursor.fetchall() == [(5,)]


@pytest.mark.slow
def test_views_read_new_batches(cursor, live, spark) -> None:
    cursor.execute("SELECT user FROM live_agg_0.default")
    before = {row[0] for row in cursor.fetchall()}
    live.add_input(restart_rows("agg"))
    live.run(spark)
    cursor.execute("SELECT user FROM live_agg_0.default")
    assert {row[0] for row in cursor.fetchall()} == before | {"dave"}


@pytest.mark.slow
def test_beeline_lists_tables_and_queries(server: Server, tmp_path: Path) -> None:
    script = tmp_path / "q.sql"
    script.write_text(
        "!tables\nSELECT user, count FROM savepoint_agg_0.default ORDER BY user;\n"
        "SELECT concat('catalog:', user), count FROM savepoint.agg_0.default ORDER BY user;\n"
    )
    result = _beeline(
        server, ["-n", USER, "-p", PASSWORD, "--outputformat=csv2", "-f", str(script)]
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "savepoint_agg_0" in result.stdout and "join_join_0" in result.stdout
    assert "alice,2" in result.stdout.splitlines()
    assert "catalog:alice,2" in result.stdout.splitlines()


READ_ONLY_LINE = (
    "Error: [SAVEPOINT_READ_ONLY] {} is refused: this server is read-only "
    "(spark.savepoint.readOnly=true). Queries, SHOW, DESCRIBE and EXPLAIN are allowed; to permit "
    "writes and DDL restart it with --allow-writes (`spark-savepoint thriftserver|connect ... "
    "--allow-writes`). (state=25006,code=0)"
)


@pytest.mark.slow
@pytest.mark.parametrize("statement, line", [
    ("DELETE FROM savepoint.agg_0.default WHERE user = 'bob'",
     READ_ONLY_LINE.format("ReplaceData")),
    ("CALL savepoint.system.take_savepoint('/tmp/never-written')",
     READ_ONLY_LINE.format("CALL take_savepoint")),
    ("SET spark.sql.catalog.x=y", READ_ONLY_LINE.format("SET spark.sql.catalog.x")),
    ("SELECT * FROM savepoint.agg_9.default",
     "Error: [SAVEPOINT_NO_SUCH_OPERATOR] No stateful operator 'agg_9' in checkpoint '{window}'. "
     "Operators: agg_0 (stateStoreSave). (state=42704,code=0)"),
    ("SELECT * FROM savepoint.agg_0.default VERSION AS OF 99",
     "Error: [SAVEPOINT_NO_SUCH_BATCH] "),
], ids=["delete", "call", "set", "no-such-operator", "no-such-batch"])  # fmt: skip
def test_beeline_shows_a_refusal_in_one_line(server: Server, checkpoints, statement: str,
                                             line: str) -> None:  # fmt: skip
    """No stack trace, no logical plan, no wrapper: the SAVEPOINT_* line and its SQLSTATE, as
    beeline prints them (its asynchronous statements: what JDBC tools use)."""
    window = checkpoints[("window_agg", "hdfs")].checkpoint
    result = _beeline(server, ["-n", USER, "-p", PASSWORD, "-e", statement])
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and errors[0].startswith(line.format(window=window)), result.stderr
    assert errors[0].endswith(",code=0)"), errors
    assert "\tat " not in result.stderr and "Caused by" not in result.stderr


def _beeline(server: Server, args: list[str]) -> subprocess.CompletedProcess:
    """pyspark's bin/beeline against ``server`` with ``args``."""
    beeline = pyspark_jars().parent / "bin" / "beeline"
    env = {**os.environ, "SPARK_HOME": str(pyspark_jars().parent)}
    return subprocess.run([str(beeline), "-u", server.url, *args], capture_output=True,
                          text=True, timeout=300, env=env)  # fmt: skip


@pytest.mark.slow
def test_server_log_is_quiet(server: Server) -> None:
    """After the statements of the tests above, Spark has logged only errors; each refused login
    is one warning line."""
    lines = server.log.read_text().splitlines()
    assert len(lines) <= 20, "\n".join(lines[:60])
    refused = [line for line in lines if "Refused a JDBC login" in line]
    assert len(refused) == 5, lines  # 3 PyHive, 2 beeline
    assert refused[-1].endswith(
        f"WARN PasswordFileAuthenticator: Refused a JDBC login as user '{USER}': wrong user name "
        "or password"
    )


@pytest.fixture(scope="module")
def writable(spark, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """A server started with ``--allow-writes`` over a private agg/hdfs query's checkpoint."""
    root = tmp_path_factory.mktemp("writable")
    query = build(spark, "agg", "hdfs", root / "agg")
    server = Server([f"w={query.checkpoint}", "--allow-writes"], root / "server.log")
    assert "  login: none (hive.server2.authentication=NONE): anyone who reaches the port" in \
        server.lines  # fmt: skip
    yield server, root
    assert server.stop() == 0, server.log.read_text()[-3000:]


@pytest.mark.slow
def test_savepoint_procedures_with_writes_allowed(writable, spark) -> None:
    """CALL take_savepoint / restore_savepoint and savepoint_list() through PyHive."""
    from pyhive import hive

    server, root = writable
    connection = hive.connect(host="127.0.0.1", port=server.port)
    cursor = connection.cursor()
    try:
        cursor.execute(f"CALL w.system.take_savepoint('{root / 'sps' / 'one'}')")
        [(path, batch, writable, operators, rows, state_bytes, manifest)] = cursor.fetchall()
        assert (path, batch, writable, operators, rows) == (str(root / "sps" / "one"), 1, False,
                                                            1, 3)  # fmt: skip
        assert json.loads(manifest)["operators"][0]["uid"] == "agg_0"
        cursor.execute(f"SELECT batch_id, operators, rows FROM savepoint_list('{root / 'sps'}')")
        assert cursor.fetchall() == [(1, "agg_0", 3)]
        restored = root / "restored"
        cursor.execute(f"CALL w.system.restore_savepoint('{restored}', 8)")
        [(target, message)] = cursor.fetchall()
        assert target == str(restored)
        assert message.startswith("Restored batch 1") and "8 partition(s)" in message
    finally:
        connection.close()
    attach(spark, str(restored), "thrift_restored")
    attach(spark, str(root / "agg" / "checkpoint"), "thrift_source")
    got = spark.sql("SELECT user, cnt, total FROM thrift_restored.agg_0.default")
    want = spark.sql("SELECT user, cnt, total FROM thrift_source.agg_0.default")
    assert sorted(map(tuple, got.collect())) == sorted(map(tuple, want.collect()))


@pytest.mark.slow
def test_source_positions_set_over_thrift_with_writes_allowed(writable, spark) -> None:
    """UPDATE of sources.offsets through PyHive commits the rewind; the table then shows it."""
    from pyhive import hive

    server, root = writable
    checkpoint = root / "agg" / "checkpoint"
    before = last_batch(checkpoint)
    connection = hive.connect(host="127.0.0.1", port=server.port)
    cursor = connection.cursor()
    try:
        cursor.execute("SELECT offset FROM w.sources.offsets")
        [(offset,)] = cursor.fetchall()
        cursor.execute("UPDATE w.sources.offsets SET offset = offset - 1")
        cursor.execute("SELECT source, offset FROM w.sources.offsets")
        assert cursor.fetchall() == [("file", offset - 1)]
    finally:
        connection.close()
    assert last_batch(checkpoint) == before + 2, "a file source rewind: two batches"
    attach(spark, str(checkpoint), "thrift_rewound")
    assert spark.table("thrift_rewound.sources.offsets").first().offset == offset - 1


@pytest.mark.slow
def test_writes_by_the_catalog_name_with_writes_allowed(writable) -> None:
    """With --allow-writes, INSERT and DELETE through PyHive name the table as PySpark does;
    the BI view shows the result at once."""
    from pyhive import hive

    server, _ = writable
    connection = hive.connect(host="127.0.0.1", port=server.port)
    cursor = connection.cursor()
    try:
        cursor.execute("INSERT INTO w.agg_0.default VALUES ('zed', 5, 50)")
        cursor.execute("DELETE FROM w.agg_0.default WHERE user = 'bob'")
        cursor.execute("SELECT user, cnt, total FROM w_agg_0.default ORDER BY user")
        users = cursor.fetchall()
    finally:
        connection.close()
    assert ("zed", 5, 50) in users and "bob" not in {row[0] for row in users}


@pytest.mark.parametrize("bind", ["0.0.0.0", "::"])
def test_binding_beyond_loopback_without_a_credential_is_one_line(tmp_path: Path, bind) -> None:
    """Refused before Spark starts (no JVM: the command ends in about a second), one line."""
    for log in ("offsets", "commits"):
        (tmp_path / log).mkdir()
    command = [sys.executable, "-m", "spark_savepoint", "thriftserver", str(tmp_path),
               "--bind", bind]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (1, "")
    [line] = result.stderr.splitlines()
    assert line.startswith(
        f"spark-savepoint: [SAVEPOINT_INSECURE_BIND] The Thrift server would accept anyone who "
        f"reaches {bind}: it has no credential. Give one: --password-file FILE"
    ), line
