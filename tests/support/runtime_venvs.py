"""One virtualenv per Spark version the tool runs on (``jar.SPARK_VERSIONS``), to run the tool
itself on that Spark: the compatibility matrix's pyspark and pins (:mod:`tests.compat.venvs`),
sqlglot, and this project installed without its dependencies (``pip install --no-deps -e``), as
a user installs it beside the pyspark their cluster runs. Cached beside the matrix's virtualenvs
and rebuilt when its requirements or the repository's folder change.

    python -m tests.support.runtime_venvs [MINOR...]   # create them (default: every version but
                                                       # the installed pyspark's); print them
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from spark_savepoint.catalog.jar import SPARK_VERSIONS, spark_minor
from tests.compat.venvs import VERSIONS, cache_dir, cached_python, mark_complete, new_venv
from tests.compat.venvs import requirements as matrix_requirements
from tests.support import REPO_ROOT

SQLGLOT = "sqlglot==30.30.0"


def pyspark_version(minor: str) -> str:
    """The matrix's pyspark release of Spark ``minor``."""
    (version,) = [v for v in VERSIONS if spark_minor(v) == minor]
    return version


def runtime_python(minor: str) -> Path:
    """The interpreter of the virtualenv running the tool on Spark ``minor``, created first
    when missing or out of date."""
    version = pyspark_version(minor)
    folder = cache_dir() / f"runtime-pyspark-{version}"
    packages = [*matrix_requirements(version), SQLGLOT]
    wanted = [*packages, f"--no-deps -e {REPO_ROOT}"]
    return cached_python(folder, wanted, lambda: _create(folder, version, packages, wanted))


def _create(folder: Path, version: str, packages: list[str], wanted: list[str]) -> None:
    create_with_project(folder, packages, wanted, version, f"running the tool on pyspark {version}")


def create_with_project(
    folder: Path, packages: list[str], wanted: list[str], version: str, what: str
) -> None:
    """Create the virtualenv ``folder`` (``what`` it is for) with ``packages``, then this project
    without its dependencies; check it imports pyspark ``version`` and mark it complete with
    ``wanted``."""
    started = time.monotonic()
    print(f"creating the virtualenv {what} in {folder}", file=sys.stderr)
    python = new_venv(folder)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *packages], check=True)
    subprocess.run([*pip, "--no-deps", "-e", str(REPO_ROOT)], check=True)
    check = "import pyspark, spark_savepoint; print(pyspark.__version__)"
    found = subprocess.run([python, "-c", check], check=True, capture_output=True, text=True,
                           cwd=folder)  # fmt: skip
    if found.stdout.strip() != version:
        raise RuntimeError(f"{folder} has pyspark {found.stdout.strip()}, not {version}")
    mark_complete(folder, wanted)
    print(f"virtualenv ready in {time.monotonic() - started:.0f} s", file=sys.stderr)


def other_versions() -> list[str]:
    """The Spark minors the tool runs on besides the installed pyspark's (which the whole suite
    runs on in the project's own virtualenv)."""
    import pyspark

    return [minor for minor in SPARK_VERSIONS if minor != spark_minor(pyspark.__version__)]


if __name__ == "__main__":
    for minor in sys.argv[1:] or other_versions():
        print(runtime_python(minor))
