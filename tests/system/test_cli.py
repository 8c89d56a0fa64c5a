"""The ``spark-savepoint`` command line: ``conf`` output and ``sql`` through real spark-sql."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from spark_savepoint.catalog.bridge import CATALOG_CLASS
from spark_savepoint.catalog.jar import jar_path
from spark_savepoint.sql_ext.cli import main
from tests.support.streaming_queries import EVENTS_SCHEMA


def test_conf_prints_submit_settings(capsys, checkpoints) -> None:
    a, b = (str(checkpoints[(kind, "hdfs")].checkpoint) for kind in ("agg", "dedup"))
    assert main(["conf", a, f"other={b}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"--conf spark.driver.extraClassPath={jar_path()}" in lines
    assert f"--conf spark.sql.catalog.savepoint={CATALOG_CLASS}" in lines
    assert f"--conf spark.sql.catalog.savepoint.path={a}" in lines
    assert f"--conf spark.sql.catalog.other.path={b}" in lines


def test_conf_defaults_format(capsys, checkpoints) -> None:
    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    assert main(["conf", ckpt, "--format", "defaults"]) == 0
    out = capsys.readouterr().out
    assert f"spark.sql.catalog.savepoint.path {ckpt}\n" in out


def test_thriftserver_port_in_use_is_one_line(capsys, checkpoints) -> None:
    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["thriftserver", ckpt, "--port", str(port)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("spark-savepoint: [SAVEPOINT_PORT_IN_USE]"), err
    assert f"Port {port} on 127.0.0.1 is already in use" in err[0] and "--port" in err[0]


def _run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a subprocess whose temp folder is a fresh folder under ``cwd``."""
    temp = cwd / "tmp"
    temp.mkdir()
    return subprocess.run(
        [sys.executable, "-m", "spark_savepoint", *args], capture_output=True, text=True,
        timeout=600, cwd=cwd, env={**os.environ, "TMPDIR": str(temp)},
    )  # fmt: skip


def _assert_nothing_left(folder: Path, keep: tuple[str, ...] = ()) -> None:
    """No derby.log, metastore_db/, spark-warehouse/ in the working folder (beside ``keep``),
    no temp files."""
    assert sorted(p.name for p in folder.iterdir() if p.name not in keep) == ["tmp"]
    assert list((folder / "tmp").iterdir()) == []


@pytest.mark.slow
def test_sql_runs_spark_sql_with_the_catalog(checkpoints, tmp_path, tmp_path_factory) -> None:
    ckpt = str(checkpoints[("agg", "hdfs")].copy(tmp_path_factory.mktemp("cli")).checkpoint)
    sql = (
        "SHOW NAMESPACES IN savepoint; "
        "SELECT user, cnt FROM savepoint.agg_0.default ORDER BY user; "
        "SELECT count(*) FROM savepoint.agg_0.default VERSION AS OF 0; "
        "SELECT uid, state FROM savepoint.metadata; "
        f"SELECT 'fn', count(*) FROM savepoint_metadata('{ckpt}') WHERE operator_id = 0; "
        "DELETE FROM savepoint.agg_0.default WHERE user = 'carol'; "
        "SELECT * FROM savepoint.agg_0.nope"
    )
    result = _run_cli(["sql", ckpt, "--force", "-e", sql], tmp_path)
    lines = result.stdout.splitlines()
    assert "agg_0" in lines
    assert "user\tcnt" in lines, lines  # column headers: the names the query recorded
    assert "agg_0\tdefault" in lines
    assert "alice\t2" in lines, lines
    assert "fn\t1" in lines, lines
    # the failing statement: exit code 1, its error in one line, little else on stderr
    assert result.returncode == 1, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if "SAVEPOINT_" in line]
    assert errors == [
        f"[SAVEPOINT_NO_SUCH_STATE] No state 'nope' in operator agg_0 of checkpoint "
        f"'{ckpt}'. States: default."
    ], result.stderr[-3000:]
    # what the edit changed, one plain line
    assert (
        f"savepoint: agg_0.default: 0 entries written, 1 removed: committed as batch 2 of '{ckpt}'"
    ) in result.stderr.splitlines(), result.stderr[-3000:]
    assert len(result.stderr.splitlines()) <= 9, result.stderr[-3000:]
    _assert_nothing_left(tmp_path)


@pytest.mark.slow
def test_sql_views_match_the_thrift_server_layout(checkpoints, tmp_path) -> None:
    """``sql --views`` makes the Thrift server's views, in spark-sql on the ``--master`` given."""
    ckpt = str(checkpoints[("window_agg", "hdfs")].checkpoint)
    sql = (
        "SET spark.master; "
        "SHOW VIEWS IN savepoint_metadata; "
        "SELECT window_start, user, count FROM savepoint_agg_0.default ORDER BY user; "
        "SELECT count(*) FROM savepoint.agg_0.default"
    )
    result = _run_cli(["sql", ckpt, "--views", "--master", "local[2]", "-e", sql], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    _assert_nothing_left(tmp_path)  # the views' init file is gone too
    lines = result.stdout.splitlines()
    assert "spark.master\tlocal[2]" in lines, lines
    assert "metadata" in lines, lines
    assert "2024-01-01 10:00:00\talice\t2" in lines, lines
    assert "3" in lines, lines


QUERY_MODULE = """
from pyspark.sql import functions as F


def build(spark):
    events = spark.readStream.schema("{schema}").json("{input}")
    return events.groupBy("user").agg(F.count("*").alias("n"), F.sum("amount").alias("amount"))
"""


@pytest.mark.slow
def test_sql_names_value_columns_as_the_query_given(checkpoints, tmp_path) -> None:
    """``--query`` names the first checkpoint's value columns as that query does (over the
    names the checkpoint's own query recorded); ``NAME=`` picks another catalog's."""
    query = checkpoints[("agg", "hdfs")]
    module = tmp_path / "renamed.py"
    module.write_text(QUERY_MODULE.format(schema=EVENTS_SCHEMA, input=query.input_dir))
    ckpt = str(query.checkpoint)
    sql = (
        "SELECT user, n, amount FROM savepoint.agg_0.default ORDER BY user; "
        "SELECT user, cnt, total FROM recorded.agg_0.default ORDER BY user"
    )
    args = ["sql", ckpt, f"recorded={ckpt}", "--query", f"{module}:build"]
    result = _run_cli([*args, "--output-mode", "update", "-e", sql], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[:2] == ["user\tn\tamount", "alice\t2\t17"], lines
    assert "user\tcnt\ttotal" in lines, lines
    _assert_nothing_left(tmp_path, keep=("renamed.py", "__pycache__"))


def test_create_makes_an_empty_savepoint(spark, checkpoints, capsys, tmp_path) -> None:
    target = tmp_path / "v2"
    template = checkpoints[("agg", "hdfs")].checkpoint
    assert main(["create", str(target), "--like", str(template)]) == 0
    assert "committed batch 0 holds empty state" in capsys.readouterr().out
    assert (target / "commits" / "0").is_file()
    # the shared session is still usable afterwards
    assert spark.range(1).count() == 1
    # a second create into the now non-empty folder is refused with an actionable message
    assert main(["create", str(target), "--like", str(template)]) == 1
    assert "SAVEPOINT_TARGET_NOT_EMPTY" in capsys.readouterr().err
