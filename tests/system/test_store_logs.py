"""Our reads and writes open Spark's state store providers in tasks of no streaming query, so
they report to no ``StateStoreCoordinator`` (Spark would log "StateStoreCoordinator endpoint not
available" at WARN for each commit where the driver has none); a real query's providers still
report to theirs."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.support import start_program

UNAVAILABLE = "StateStoreCoordinator endpoint not available"
RETRIEVED = "Retrieved reference to StateStoreCoordinator"


def phases(stderr: str) -> dict[str, str]:
    """The driver's stderr, split at its ``@@<phase>`` lines."""
    parts = re.split(r"^@@(\w+)$", stderr, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.slow
def test_savepoints_and_edits_log_no_coordinator_lookups(private_copy, tmp_path: Path) -> None:
    roots = [str(private_copy("agg", p).root) for p in ("hdfs", "rocksdb")]
    program = start_program("store_logs", *roots, cwd=tmp_path, stdin=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip
    out, err = program.communicate(timeout=600)
    assert program.returncode == 0, err[-3000:]
    logged = phases(err)
    assert list(logged) == ["canary", "ours", "query"], err[-3000:]
    assert UNAVAILABLE in logged["canary"], logged["canary"][-3000:]  # the logger is heard
    assert "StateStoreCoordinator" not in logged["ours"], logged["ours"][-3000:]
    assert RETRIEVED in logged["query"] and UNAVAILABLE not in logged["query"]
    restarted = json.loads(out.strip().splitlines()[-1])
    assert restarted == {
        root: [{"user": "alice", "cnt": 4, "total": 25}, {"user": "dave", "cnt": 11, "total": 108}]
        for root in roots
    }
