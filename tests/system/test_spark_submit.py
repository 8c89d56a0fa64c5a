"""The settings ``spark-savepoint conf`` prints, given to Spark's own ``spark-submit`` with two
executor JVMs (``local-cluster[2,1,1024]``): a plain PySpark job reads and writes state, and
the real streaming query continues from the edit."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from spark_savepoint.catalog.jar import pyspark_jars
from tests.support import REPO_ROOT


@pytest.mark.slow
@pytest.mark.cluster
def test_spark_submit_with_the_printed_settings(spark, private_copy, tmp_path: Path) -> None:
    query = private_copy("agg", "hdfs")
    conf = subprocess.run(
        [sys.executable, "-m", "spark_savepoint", "conf", str(query.checkpoint)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    spark_home = pyspark_jars().parent
    command = [
        str(spark_home / "bin" / "spark-submit"), "--master", "local-cluster[2,1,1024]",
        *shlex.split(conf), "--conf", "spark.savepoint.write.force=true",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.ui.showConsoleProgress=false",
        str(REPO_ROOT / "tests" / "support" / "submit_job.py"),
    ]  # fmt: skip
    env = {**os.environ, "SPARK_HOME": str(spark_home), "PYSPARK_PYTHON": sys.executable}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env,
                            cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["executors"] == 2
    assert report["before"] == [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert report["after"] == [
        ["alice", 10, 100], ["bob", 2, 11], ["carol", 1, 3], ["dave", 3, 30]
    ]  # fmt: skip
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 12, "total": 108},
        {"user": "dave", "cnt": 4, "total": 38},
    ]
