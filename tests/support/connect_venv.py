"""The Spark Connect client's virtualenv: ``pyspark-client`` (the Connect-only PySpark, no JVM,
no py4j) and this project installed into it without its dependencies (``pip install --no-deps
-e``), so a test can run the Python API as a ``pyspark-client`` user does.

``pyspark-client`` and ``pyspark`` install the same ``pyspark`` module, so the client lives in a
virtualenv of its own, cached beside the compatibility matrix's
(:func:`tests.compat.venvs.cache_dir`) and rebuilt when its requirements or the repository's
folder change. ``python -m tests.support.connect_venv`` creates it and prints its interpreter.
"""

from __future__ import annotations

from pathlib import Path

from tests.compat.venvs import cache_dir, cached_python
from tests.support import REPO_ROOT
from tests.support.runtime_venvs import create_with_project

CLIENT_VERSION = "4.2.0"
"""The newest ``pyspark-client`` released: an older client on the 4.3 server, the direction
Spark supports."""

REQUIREMENTS = (
    f"pyspark-client=={CLIENT_VERSION}",
    "pandas==2.3.3",
    "pyarrow==26.0.1",
    "numpy==2.4.6",
    "sqlglot==30.30.0",
)
"""What pip installs (``pyspark-client`` brings grpcio, protobuf and zstandard)."""


def client_python() -> Path:
    """The client virtualenv's interpreter, created first when missing or out of date."""
    folder = cache_dir() / f"pyspark-client-{CLIENT_VERSION}"
    wanted = [*REQUIREMENTS, f"--no-deps -e {REPO_ROOT}"]
    return cached_python(folder, wanted, lambda: _create(folder, wanted))


def _create(folder: Path, wanted: list[str]) -> None:
    create_with_project(folder, list(REQUIREMENTS), wanted, CLIENT_VERSION,
                        "of the Spark Connect client")  # fmt: skip


if __name__ == "__main__":
    print(client_python())
