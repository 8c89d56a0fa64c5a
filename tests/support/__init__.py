"""Helpers shared by the test layers (no tests here): real streaming queries, checkpoint file
snapshots, state rows, and the driver programs that system tests start in their own process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


def start_program(name: str, *args: str, cwd: Path, **popen: Any) -> subprocess.Popen:
    """Start ``tests/support/<name>.py`` as a Python process of its own (a second Spark
    driver), with the repository importable; text pipes for stdin and stdout unless given."""
    popen = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True, **popen}
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYSPARK_PYTHON": sys.executable}
    return subprocess.Popen([sys.executable, "-m", f"tests.support.{name}", *args],
                            cwd=cwd, env=env, **popen)  # fmt: skip
