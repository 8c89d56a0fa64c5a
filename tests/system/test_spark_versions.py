"""The tool running on each Spark it supports besides the one of this suite: in a virtualenv
with that pyspark and the project installed beside it (:mod:`tests.support.runtime_venvs`), it
reads (also with time travel), checks an upgrade, edits with every statement, takes a savepoint,
restores it onto another partition count and restarts the real query on the result, all with
that Spark (tests/support/version_run.py).
The full suite runs on the installed pyspark (4.3); this is the subset run on the others."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from spark_savepoint.catalog.jar import jar_name
from tests.support import REPO_ROOT
from tests.support.runtime_venvs import other_versions, pyspark_version, runtime_python

OTHERS = other_versions()


def _run(minor: str, root: Path) -> dict:
    python = runtime_python(minor)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYSPARK_PYTHON": str(python)}
    env.pop("SPARK_HOME", None)
    args = json.dumps({"root": str(root), "providers": ["hdfs", "rocksdb"]})
    result = subprocess.run([str(python), "-m", "tests.support.version_run", args], cwd=root,
                            env=env, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("minor", OTHERS)
def test_the_tool_runs_on_spark(minor: str, tmp_path: Path) -> None:
    out = _run(minor, tmp_path)
    assert (out["pyspark"], out["spark"]) == (pyspark_version(minor),) * 2
    assert out["jar"] == jar_name(minor)  # the jar built against that Spark's own jars
    for provider in ("hdfs", "rocksdb"):
        seen = out[provider]
        assert seen["before"] == [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
        assert seen["upgrade"] == ["compatible", ["keep"]]  # the query planned by that Spark
        assert seen["edits"] == [2, 3, 4, 5]  # INSERT, DELETE, UPDATE, MERGE: a batch each
        assert seen["version_1"] == seen["before"]  # VERSION AS OF an older batch
        after = [["alice", 100, 1000], ["carol", 1, 4], ["dave", 10, 100]]
        assert seen["after"] == after and seen["restored"] == after and seen["taken"] == 5
        assert {p for (p,) in seen["partitions"]} == {4, 5, 7}  # rehashed onto 8 partitions
        # the decisive check: the query, restarted on the restored savepoint by that Spark
        assert seen["restart"] == [["alice", 102, 1008], ["bob", 1, 5], ["dave", 11, 108]]


@pytest.mark.slow
@pytest.mark.parametrize("minor", OTHERS)
def test_pip_install_keeps_the_pyspark_in_place(minor: str) -> None:
    python = runtime_python(minor)
    report = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--report", "-",
         "--disable-pip-version-check", str(REPO_ROOT)],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    installs = {item["metadata"]["name"]: item["metadata"]["version"]
                for item in json.loads(report.stdout)["install"]}  # fmt: skip
    assert "pyspark" not in installs, installs
    assert set(installs) == {"spark-savepoint"}, installs
