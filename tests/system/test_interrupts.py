"""Ctrl-C and SIGTERM on a command that writes: its Spark jobs are cancelled, the folder it was
writing is removed before Spark stops (no task can still write there), its scratch folder is
removed, and it ends with one line. The source is unchanged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.checkpoint_files import snapshot

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_restore_leaves_nothing(checkpoints, tmp_path: Path, signum) -> None:
    source = checkpoints[("agg", "hdfs")].checkpoint
    before = snapshot(source)
    target, temp = tmp_path / "restored", tmp_path / "tmp"
    temp.mkdir()
    command = [sys.executable, "-m", "spark_savepoint", "savepoint", "restore", str(source),
               str(target), "--partitions", "5000", "--master", "local[2]"]  # fmt: skip
    env = {**os.environ, "TMPDIR": str(temp)}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 300
    while not (target / "state").exists():  # writing the state: its job runs
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the restore never started writing"
        time.sleep(0.1)
    process.send_signal(signum)
    out, err = process.communicate(timeout=180)
    assert process.returncode == 130, err[-3000:]
    assert err.splitlines()[-1] == (
        "spark-savepoint: interrupted; Spark stopped, temporary files removed"
    ), err[-3000:]
    assert "Traceback" not in err and "ERROR" not in err, err[-3000:]
    assert not target.exists(), sorted(str(p) for p in target.rglob("*"))[:20]
    assert list(temp.iterdir()) == []
    assert snapshot(source) == before
