"""One virtualenv per pyspark version of the compatibility matrix, created on first use.

Each lives under ``$SPARK_SAVEPOINT_COMPAT_VENVS`` (default
``~/.cache/spark-savepoint/compat-venvs``) as ``pyspark-<version>``, with exactly that pyspark and
the pinned pandas, pyarrow, numpy and protobuf its Python workers need (``applyInPandasWithState``,
``transformWithStateInPandas``). A venv counts as complete only once its marker file, written last,
names the same requirements; anything else is removed and built again. A lock file per version
makes two processes asking at once build it once. ``python -m tests.compat.venvs [VERSION...]``
creates them (all when none is named) and prints their interpreters.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

VERSIONS = ("3.5.9", "4.0.5", "4.1.4", "4.2.1", "4.3.0")
"""The pyspark versions of the matrix: the latest patch release of each minor."""

PINS: dict[str, tuple[str, ...]] = {
    "3.5.9": ("numpy==1.26.4", "pandas==2.2.3", "pyarrow==15.0.2"),
    "4.0.5": ("numpy==2.2.6", "pandas==2.2.3", "pyarrow==20.0.0", "protobuf==5.29.5"),
    "4.1.4": ("numpy==2.3.5", "pandas==2.3.3", "pyarrow==22.0.0", "protobuf==6.33.5"),
    "4.2.1": ("numpy==2.4.6", "pandas==2.3.3", "pyarrow==26.0.1", "protobuf==6.33.5"),
    "4.3.0": ("numpy==2.4.6", "pandas==2.3.3", "pyarrow==26.0.1", "protobuf==6.33.5"),
}
"""Version -> the packages installed beside ``pyspark==<version>`` (pyspark 3.5 needs numpy 1)."""

_MARKER = ".complete.json"


def cache_dir() -> Path:
    """The folder holding the virtualenvs."""
    default = Path("~/.cache/spark-savepoint/compat-venvs")
    return Path(os.environ.get("SPARK_SAVEPOINT_COMPAT_VENVS") or default).expanduser()


def requirements(version: str) -> list[str]:
    """Everything pip installs into the version's virtualenv."""
    if version not in PINS:
        raise ValueError(f"unknown pyspark version {version!r}; known: {VERSIONS}")
    return [f"pyspark=={version}", *PINS[version]]


def python_for(version: str) -> Path:
    """The interpreter of the virtualenv with pyspark ``version``, created if not complete."""
    wanted = requirements(version)
    folder = cache_dir() / f"pyspark-{version}"
    return cached_python(folder, wanted, lambda: _create(folder, version, wanted))


def cached_python(folder: Path, wanted: list[str], create: Callable[[], None]) -> Path:
    """The interpreter of the virtualenv ``folder``, made by ``create`` (which ends with
    :func:`mark_complete`) unless its marker already names ``wanted``; a lock file beside it
    makes two processes asking at once create it once."""
    python = folder / "bin" / "python"
    if _complete(folder, wanted):
        return python
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits here, then finds it complete
        if not _complete(folder, wanted):
            create()
    return python


def _complete(folder: Path, wanted: list[str]) -> bool:
    try:
        marker = json.loads((folder / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    return marker.get("requirements") == wanted and (folder / "bin" / "python").exists()


def _create(folder: Path, version: str, wanted: list[str]) -> None:
    """Build the virtualenv from scratch; the marker is written only when all went well."""
    started = time.monotonic()
    hint = "about 30 s with a warm pip cache, a few minutes without"
    print(f"creating virtualenv for pyspark {version} ({hint}) in {folder}", file=sys.stderr)
    python = new_venv(folder)
    print(f"  pip install {' '.join(wanted)}", file=sys.stderr)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *wanted], check=True)
    check = "import pyspark, pandas, pyarrow; print(pyspark.__version__)"
    found = subprocess.run([python, "-c", check], check=True, capture_output=True, text=True)
    if found.stdout.strip() != version:
        raise RuntimeError(f"{folder} has pyspark {found.stdout.strip()}, not {version}")
    mark_complete(folder, wanted)
    elapsed = time.monotonic() - started
    print(f"virtualenv for pyspark {version} ready in {elapsed:.0f} s", file=sys.stderr)


def new_venv(folder: Path) -> str:
    """An empty virtualenv in ``folder`` (anything there before is removed); its interpreter."""
    shutil.rmtree(folder, ignore_errors=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(folder)], check=True)
    return str(folder / "bin" / "python")


def mark_complete(folder: Path, wanted: list[str]) -> None:
    """Write the marker that makes ``folder`` count as a complete virtualenv of ``wanted``."""
    tmp = folder / f"{_MARKER}.tmp"
    tmp.write_text(json.dumps({"requirements": wanted}, indent=1) + "\n")
    tmp.rename(folder / _MARKER)


def main(argv: list[str]) -> int:
    """Create the named versions' virtualenvs (all when none is named); print each interpreter."""
    for version in argv or VERSIONS:
        print(f"{version} {python_for(version)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
