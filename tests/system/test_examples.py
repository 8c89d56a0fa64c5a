"""The walkthroughs in ``examples/`` run end to end (each restarts its real streaming query and
asserts what the restarted query emits), each as a Spark driver of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

pytestmark = pytest.mark.slow

EXAMPLES = {
    "fix_a_key.py": "restarted query output: {'spark': (3, 15), '%%%': (1, 3)}",
    "bootstrap.py": "new checkpoint's first output: ",
    "rescale.py": "restarted query output: {'spark': (3, 15), 'state': (2, 10)}",
    "replay_input.py": "restarted query output: {'spark': (2, 10), 'stream': (1, 6)}",
    "doctor.py": "/checkpoint: healthy",
    "purge_old_state.py": "restarted query output: [5]",
    "quickstart.py": "|savepoint|1   |",
}


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_example_runs(example: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / example), "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert EXAMPLES[example] in done.stdout, done.stdout[-3000:]
