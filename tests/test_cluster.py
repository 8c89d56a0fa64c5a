"""On local-cluster the executors are separate JVMs: the jar must reach them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sql_ext import attach

SCRIPT = Path(__file__).with_name("cluster_read.py")


@pytest.mark.cluster
def test_catalog_reads_on_separate_executor_jvms(spark, checkpoints) -> None:
    ckpt = str(checkpoints[("agg", "rocksdb")].checkpoint)
    result = subprocess.run(
        [sys.executable, str(SCRIPT), ckpt, "agg_0", "default"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["executors"] >= 1
    attach(spark, ckpt, "cl")
    expected = [r.asDict(recursive=True) for r in spark.table("cl.agg_0.default").collect()]
    key = lambda row: json.dumps(row, sort_keys=True, default=str)  # noqa: E731
    assert sorted(report["rows"], key=key) == sorted(expected, key=key)
