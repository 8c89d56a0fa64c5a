"""On local-cluster the executors are separate JVMs: the jar must reach them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from spark_savepoint import attach
from tests.support import start_program


@pytest.mark.slow
@pytest.mark.cluster
def test_catalog_reads_and_looks_up_on_separate_executors(
    spark, checkpoints, tmp_path: Path
) -> None:
    ckpt = str(checkpoints[("agg", "rocksdb")].checkpoint)
    reader = start_program(
        "cluster_read",
        ckpt,
        "agg_0",
        "default",
        "user = 'alice'",
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    out, err = reader.communicate(timeout=300)
    assert reader.returncode == 0, err[-3000:]
    report = json.loads(out.strip().splitlines()[-1])
    assert report["executors"] >= 1
    attach(spark, ckpt, "cl")
    expected = [r.asDict(recursive=True) for r in spark.table("cl.agg_0.default").collect()]
    key = lambda row: json.dumps(row, sort_keys=True, default=str)  # noqa: E731
    assert sorted(report["rows"], key=key) == sorted(expected, key=key)
    assert report["lookup"] == [row for row in expected if row["user"] == "alice"]
