"""The Spark Connect client's virtualenv: ``pyspark-client`` (the Connect-only PySpark, no JVM,
no py4j) and this project installed into it without its dependencies (``pip install --no-deps
-e``), so a test can run the Python API as a ``pyspark-client`` user does.

``pyspark-client`` and ``pyspark`` install the same ``pyspark`` module, so the client lives in a
virtualenv of its own, cached beside the compatibility matrix's
(:func:`tests.compat.venvs.cache_dir`) and rebuilt when its requirements or the repository's
folder change. One per Spark minor the tool runs on from 4.0 (:data:`CLIENT_VERSIONS`: a client
of the server's own line, as Spark supports). ``python -m tests.support.connect_venv [MINOR...]``
creates them (default: every one) and prints their interpreters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.compat.venvs import PINS, cache_dir, cached_python
from tests.support import REPO_ROOT
from tests.support.runtime_venvs import SQLGLOT, create_with_project, pyspark_version

CLIENT_VERSION = "4.2.0"
"""The newest ``pyspark-client`` released: an older client on the 4.3 server, the direction
Spark supports."""

CLIENT_VERSIONS = {"4.0": "4.0.4", "4.1": "4.1.3", "4.2": CLIENT_VERSION}
"""The ``pyspark-client`` for a server of each Spark minor: the newest of that line, no newer
than the server's release."""


def requirements(client: str, minor: str) -> list[str]:
    """What pip installs for ``pyspark-client`` ``client`` (it brings grpcio, protobuf and
    zstandard): the compatibility matrix's pandas, pyarrow and numpy of Spark ``minor``."""
    pins = [pin for pin in PINS[pyspark_version(minor)] if not pin.startswith("protobuf")]
    return [f"pyspark-client=={client}", *pins, SQLGLOT]


def client_python(minor: str = "4.2") -> Path:
    """The interpreter of the client virtualenv for a server of Spark ``minor``, created first
    when missing or out of date."""
    client = CLIENT_VERSIONS[minor]
    packages = requirements(client, minor)
    folder = cache_dir() / f"pyspark-client-{client}"
    wanted = [*packages, f"--no-deps -e {REPO_ROOT}"]
    return cached_python(folder, wanted, lambda: _create(folder, client, packages, wanted))


def _create(folder: Path, client: str, packages: list[str], wanted: list[str]) -> None:
    create_with_project(folder, packages, wanted, client, "of the Spark Connect client")


def run_client(python: Path, script: str, args: dict, cwd: Path) -> dict:
    """Run a client program of tests/support in the pyspark-client virtualenv, with no token
    in its environment (pyspark would read SPARK_CONNECT_AUTHENTICATE_TOKEN)."""
    hidden = ("PYTHONPATH", "SPARK_HOME", "SPARK_CONNECT_AUTHENTICATE_TOKEN", "SPARK_REMOTE")
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    path = REPO_ROOT / "tests" / "support" / script
    result = subprocess.run([str(python), str(path), json.dumps(args)], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


if __name__ == "__main__":
    for minor in sys.argv[1:] or CLIENT_VERSIONS:
        print(client_python(minor))
