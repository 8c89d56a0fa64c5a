"""The ``spark-savepoint`` command line: ``conf`` output and ``sql`` through real spark-sql."""

from __future__ import annotations

import subprocess
import sys

import pytest

from catalog.jar import CATALOG_CLASS, jar_path
from sql_ext.cli import main


def test_conf_prints_submit_settings(capsys, tmp_path) -> None:
    assert main(["conf", str(tmp_path / "a"), f"other={tmp_path / 'b'}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"--conf spark.driver.extraClassPath={jar_path()}" in lines
    assert f"--conf spark.sql.catalog.savepoint={CATALOG_CLASS}" in lines
    assert f"--conf spark.sql.catalog.savepoint.path={tmp_path / 'a'}" in lines
    assert f"--conf spark.sql.catalog.other.path={tmp_path / 'b'}" in lines


def test_conf_defaults_format(capsys, tmp_path) -> None:
    assert main(["conf", str(tmp_path), "--format", "defaults"]) == 0
    out = capsys.readouterr().out
    assert f"spark.sql.catalog.savepoint.path {tmp_path}\n" in out


@pytest.mark.slow
def test_sql_runs_spark_sql_with_the_catalog(checkpoints, tmp_path) -> None:
    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    sql = (
        "SHOW NAMESPACES IN savepoint; "
        "SELECT user, count FROM savepoint.agg_0.default ORDER BY user; "
        "SELECT count(*) FROM savepoint.agg_0.default VERSION AS OF 0; "
        "SELECT uid, state FROM savepoint.metadata; "
        f"SELECT 'fn', count(*) FROM savepoint_metadata('{ckpt}')"
    )
    result = subprocess.run(
        [sys.executable, "-m", "sql_ext.cli", "sql", ckpt, "-e", sql],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,  # spark-sql's metastore_db
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert "agg_0" in lines
    assert "agg_0\tdefault" in lines
    assert "alice\t2" in lines, lines
    assert "fn\t1" in lines, lines


@pytest.mark.slow
def test_sql_views_match_the_thrift_server_layout(checkpoints, tmp_path) -> None:
    ckpt = str(checkpoints[("window_agg", "hdfs")].checkpoint)
    sql = (
        "SHOW VIEWS IN savepoint; "
        "SELECT window_start, user, count FROM savepoint.agg_0_default ORDER BY user; "
        "SELECT count(*) FROM savepoint_catalog.agg_0.default"
    )
    result = subprocess.run(
        [sys.executable, "-m", "sql_ext.cli", "sql", ckpt, "--views", "-e", sql],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,  # spark-sql's metastore_db
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert "agg_0_default" in lines and "metadata" in lines, lines
    assert "2024-01-01 10:00:00\talice\t2" in lines, lines
    assert "3" in lines, lines


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
