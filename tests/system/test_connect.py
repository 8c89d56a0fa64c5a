"""``spark-savepoint connect`` with the real Spark Connect client: ``pyspark-client`` 4.2 in its
own virtualenv (no JVM, no py4j) runs the Python API against the 4.3 server in a subprocess; the
edits it makes are checked by restarting the real streaming query on the checkpoint."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from spark_savepoint.sql_ext.cli import main
from tests.support.connect_venv import CLIENT_VERSION, client_python, run_client
from tests.support.server_process import ServerProcess
from tests.support.streaming_queries import StreamingQuery, restart_rows

TABLE = "savepoint.agg_0.default"
BOB_AGAIN = {"event_id": 7, "user": "bob", "item": "pear", "amount": 5, "ts": "2024-01-01 10:09:00"}


@pytest.fixture(scope="module")
def served(checkpoints, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A Connect server on a private copy of the agg/hdfs checkpoint (catalog ``savepoint``),
    and a copy of dedup/rocksdb for the client to attach."""
    root = tmp_path_factory.mktemp("connect")
    agg = checkpoints[("agg", "hdfs")].copy(root / "agg")
    dedup = checkpoints[("dedup", "rocksdb")].copy(root / "dedup")
    python = client_python()  # created once, cached (about 30 s the first time)
    home = root / "home"  # where the server writes the token it generates
    server = ServerProcess(["connect", str(agg.checkpoint), "--allow-writes",
                            "--master", "local[1]", "--conf", "spark.sql.shuffle.partitions=4"],
                           root / "server.log", env={"HOME": str(home)})  # fmt: skip
    yield {"server": server, "agg": agg, "dedup": dedup, "root": root, "python": python,
           "home": home}  # fmt: skip
    server.stop()


@pytest.mark.slow
def test_pyspark_client_reads_and_writes_through_the_server(served: dict, spark) -> None:
    server: ServerProcess = served["server"]
    url = server.line("Spark Connect URL: ")
    token_file = served["home"] / ".spark-savepoint" / f"connect-{server.port}.token"
    token = token_file.read_text().strip()
    assert url == f"sc://localhost:{server.port}/;token={token}" and len(token) >= 40
    assert oct(token_file.stat().st_mode & 0o777) == oct(0o600)
    assert f"  token in {token_file} (owner-only, generated for this start, removed at stop); " \
        "clients without it are refused" in server.lines  # fmt: skip
    assert any(line.strip().startswith("writes ALLOWED") for line in server.lines)
    root: Path = served["root"]
    args = {"url": url, "agg": str(served["agg"].checkpoint),
            "dedup": str(served["dedup"].checkpoint), "savepoints": str(root / "savepoints"),
            "missing": str(root / "nowhere"), "empty": str(root / "empty")}  # fmt: skip
    out = run_client(served["python"], "connect_client.py", args, root)

    assert (out["pyspark"], out["session"]) == (CLIENT_VERSION, "pyspark.sql.connect.session")
    assert out["jvm_modules"] == []  # spark_savepoint imported without py4j
    # reads, metadata, edits by SQL and by the DataFrame writer, time travel
    assert out["before"] == [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert out["metadata"] == [["agg_0", "default", 1]]
    assert out["after"] == [["alice", 100, 1000], ["carol", 1, 3], ["dave", 10, 100]]
    assert out["version_1"] == out["before"]
    assert out["batches"] == [0, 1, 2, 3, 4]  # each edit one batch
    assert out["diff"] == [["delete", "bob"], ["insert", "dave"], ["update", "alice"]]
    # the Python API from the client: attach, session, savepoints, table functions, UDTFs
    assert out["dedup"] == [1, 2, 3, 4]
    assert out["session_is_active"] is True
    assert out["savepoint_metadata"] == [["agg_0", "default"]]
    assert out["savepoint_state"] == [["alice", 2], ["bob", 2], ["carol", 1]]
    assert out["taken"] == [4, 3] and out["listed"] == [[4, 3]] and out["savepoint_list"] == [[4]]
    assert out["bootstrap"] == [["a", 2, 3], ["b", 1, 5]]
    # errors: the server's come back as our one-line classes, the client's say what to use
    errors = out["errors"]
    assert errors["raw_condition"].startswith(
        "AnalysisException [SAVEPOINT_NO_SUCH_STATE] No state 'nope' in operator agg_0"
    )
    assert errors["typed"]["type"] == "NoSuchState"
    assert errors["typed"]["text"] == errors["raw_condition"][len("AnalysisException ") :]
    assert errors["attach_missing"]["type"] == "NoSuchCheckpoint"
    assert "nowhere' does not exist" in errors["attach_missing"]["text"]
    refused = errors["upgrade_check"]  # plans a DataFrame in the driver: local only
    assert refused["class"] == "SAVEPOINT_CONNECT_UNSUPPORTED", refused
    assert "upgrade_check() needs the Spark driver's JVM" in refused["text"], refused
    assert "spark-savepoint upgrade check" in refused["text"] and "\n" not in refused["text"]
    # the session's procedures: what its last edit did, a dry run, a transaction's plan
    assert out["last_edit"] == [4, 1]  # the DataFrame writer's append
    assert out["dry_run"] == [5, 1, ["[carol]: [1,3] -> (removed)"]]
    assert out["transaction_plan"] == [["agg_0.default", 1]]
    assert out["batches_after_plans"] == [0, 1, 2, 3, 4]  # neither committed anything
    assert out["inspected"] == [4, ["agg_0"]]  # inspect lists the files through a procedure
    # undo, hygiene and the edit record: procedures too
    assert out["undo_planned"] == [4, 1, "dry run: nothing was written"]
    assert out["hygiene"] == [["agg_0.default", 3, None, True]]  # no watermark evicts it
    assert out["edits"] == [
        [2, [f"INSERT INTO {TABLE} VALUES ('alice', 100, 1000)"], 1, 0],
        [3, [f"DELETE FROM {TABLE} WHERE user = 'bob'"], 0, 1],
        [4, [], 1, 0],  # the DataFrame writer's append: no SQL
    ]
    assert out["created"].startswith(f"Created empty savepoint '{root / 'empty'}' shaped like")

    # the decisive check: the real query restarted on the edited checkpoint
    assert server.stop() == 0, server.log.read_text()[-3000:]
    assert "spark-savepoint: stopping the Connect server" in server.lines
    assert not token_file.exists(), "a generated token lasts one start"
    query: StreamingQuery = served["agg"]
    query.add_input([*restart_rows("agg"), BOB_AGAIN])
    assert query.run(spark) == [
        {"user": "alice", "cnt": 102, "total": 1008},  # from the upsert 100/1000
        {"user": "bob", "cnt": 1, "total": 5},  # deleted: starts over
        {"user": "dave", "cnt": 11, "total": 108},  # appended by the DataFrame writer
    ]


def test_connect_port_in_use_is_one_line(capsys, tmp_path: Path) -> None:
    for log in ("offsets", "commits"):
        (tmp_path / log).mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["connect", str(tmp_path), "--port", str(port)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"spark-savepoint: [SAVEPOINT_PORT_IN_USE] Port {port} on 127.0.0.1 is already in use by "
        f"another process: stop it, or start the Connect server on a free port with --port "
        f"(e.g. --port {port + 1})."
    ]


@pytest.fixture(scope="module")
def read_only(checkpoints, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A default (read-only) Connect server, started with the deprecated ``--read-only`` and a
    token from the environment variable Spark reads."""
    root = tmp_path_factory.mktemp("connect-read-only")
    agg = checkpoints[("agg", "hdfs")].copy(root / "agg")
    token = "token-from-the-environment-0123456789"
    server = ServerProcess(["connect", str(agg.checkpoint), "--read-only", "--master", "local[1]",
                            "--conf", "spark.sql.shuffle.partitions=4"], root / "server.log",
                           env={"HOME": str(root / "home"),
                                "SPARK_CONNECT_AUTHENTICATE_TOKEN": token})  # fmt: skip
    yield {"server": server, "root": root, "token": token, "python": client_python()}
    server.stop()


@pytest.mark.slow
def test_clients_need_the_token_and_a_default_server_refuses_writes(read_only: dict) -> None:
    server: ServerProcess = read_only["server"]
    token = read_only["token"]
    assert server.line("Spark Connect URL: ") == f"sc://localhost:{server.port}/;token={token}"
    token_file = read_only["root"] / "home" / ".spark-savepoint" / f"connect-{server.port}.token"
    assert token_file.read_text() == token + "\n"
    assert f"  token in {token_file} (owner-only, given, removed at stop); clients without it " \
        "are refused" in server.lines  # fmt: skip
    assert oct(token_file.stat().st_mode & 0o777) == oct(0o600)
    assert any(line.strip() == "read-only; Ctrl-C or SIGTERM stops the server"
               for line in server.lines)  # fmt: skip
    assert server.log.read_text().splitlines()[0] == (
        "spark-savepoint: --read-only is the default now and will be removed; --allow-writes "
        "lets clients write"
    )
    out = run_client(read_only["python"], "connect_auth_client.py",
                      {"port": server.port, "token": token}, read_only["root"])  # fmt: skip

    # Spark's own authentication refuses the call (gRPC UNAUTHENTICATED)
    assert out["no_token"]["type"] == "SparkConnectGrpcException", out["no_token"]
    assert "No authentication token provided" in out["no_token"]["text"], out["no_token"]
    assert out["wrong_token"]["type"] == "SparkConnectGrpcException", out["wrong_token"]
    assert "Invalid authentication token" in out["wrong_token"]["text"], out["wrong_token"]
    assert out["read"] == {"ok": ["alice", "bob", "carol"]}
    for write in ("insert", "append"):
        assert out[write]["class"] == "SAVEPOINT_READ_ONLY", out[write]
        assert "--allow-writes" in out[write]["text"], out[write]
    assert out["after"] == out["read"]


def test_connect_token_file_others_can_read_is_one_line(tmp_path: Path) -> None:
    """Refused before Spark starts: one line on stderr, nothing on stdout."""
    for log in ("offsets", "commits"):
        (tmp_path / log).mkdir()
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    token.chmod(0o644)
    result = subprocess.run([sys.executable, "-m", "spark_savepoint", "connect", str(tmp_path),
                             "--token-file", str(token)], capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        f"spark-savepoint: [SAVEPOINT_CREDENTIAL_FILE] --token-file {token} can be read by other "
        f"users (mode 0644): only its owner may: chmod 600 {token}."
    ]
