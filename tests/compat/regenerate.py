"""Rebuild the committed golden checkpoints, ``tests/golden/<version>/``, one pyspark at a time.

    python -m tests.compat.regenerate [VERSION...]

Run from the repository root with the project's interpreter (any Python 3.10+; it imports no
Spark). For every version (all of ``VERSIONS`` when none is named) it makes sure the version's
virtualenv exists (``tests.compat.venvs``: 15-100 s each the first time, depending on the pip
cache), runs ``tests.compat.build_golden`` with that interpreter into a temporary folder and,
only if every case was built, replaces ``tests/golden/<version>/`` with it. A build takes 1-2
minutes per version on 2 cores (3.5: 10 cases, 4.0: 11, 4.1+: 15); all five take about 7 minutes
with the venvs in place.
The build's full log is kept in the temporary folder when it fails (the path is printed).
Regenerated goldens differ from the committed ones in timestamps, unique ids and temporary input
paths even when nothing else changed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.compat.venvs import VERSIONS, python_for
from tests.support import REPO_ROOT

GOLDEN = REPO_ROOT / "tests" / "golden"
"""The folder of the committed goldens, one subfolder per pyspark version."""


def regenerate(version: str) -> bool:
    """Build the version's goldens and put them in place; False (golden untouched) on failure."""
    python = python_for(version)
    work = Path(tempfile.mkdtemp(prefix=f"golden-{version}-"))
    out, log = work / "out", work / "build.log"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYSPARK_PYTHON": str(python)}
    command = [str(python), "-m", "tests.compat.build_golden", str(out)]
    started = time.monotonic()
    with open(log, "w") as sink:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=sink, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        for line in process.stderr:  # progress lines through, everything into the log
            sink.write(line)
            if line.startswith("pyspark "):
                print(f"  {line.rstrip()}", file=sys.stderr, flush=True)
        code = process.wait()
    elapsed = time.monotonic() - started
    if code != 0:
        print(f"pyspark {version}: build failed after {elapsed:.0f} s, log {log}", file=sys.stderr)
        return False
    target = GOLDEN / version
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(out), str(target))
    shutil.rmtree(work)
    print(f"pyspark {version}: {target} rebuilt in {elapsed:.0f} s", file=sys.stderr, flush=True)
    return True


def main(versions: list[str]) -> int:
    """Regenerate the named versions' goldens (all when none is named); 1 if any failed."""
    unknown = sorted(set(versions) - set(VERSIONS))
    if unknown:
        print(f"unknown versions {unknown}; known: {VERSIONS}", file=sys.stderr)
        return 2
    failed = [version for version in versions or VERSIONS if not regenerate(version)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
