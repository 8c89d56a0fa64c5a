"""The README's "Supported checkpoints" table, filled from the compatibility tests' outcomes.

Compat tests wrap each check in ``cell(golden, column)``; when the environment variable
``SPARK_SAVEPOINT_COMPAT_MATRIX`` names a file, the session writes the outcomes there
(``tests/compat/conftest.py``). Regenerate the table after changing what is supported::

    .venv/bin/python -m tests.compat.matrix      # runs tests/compat (about 10 minutes)

It writes ``tests/compat/matrix.json`` and the table between the README's
``<!-- compat-matrix -->`` markers; ``tests/unit/test_compat_matrix.py`` keeps the two in step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support import REPO_ROOT

ENV = "SPARK_SAVEPOINT_COMPAT_MATRIX"
MATRIX_FILE = REPO_ROOT / "tests" / "compat" / "matrix.json"
README = REPO_ROOT / "README.md"
START, END = "<!-- compat-matrix -->", "<!-- /compat-matrix -->"
COLUMNS = ("read", "edit", "restart")
"""read: every state table equals what Spark read; edit: INSERT and DELETE committed; restart:
the query restarted on the version that wrote the checkpoint continues from the edit."""

KIND_NAMES = {
    "agg": "aggregation",
    "window_agg": "windowed aggregation",
    "dedup": "dropDuplicates",
    "join": "stream-stream join",
    "pandas_state": "applyInPandasWithState",
    "tws": "transformWithStateInPandas",
}
PROVIDER_NAMES = {1: {"hdfs": "HDFS-backed", "rocksdb": "RocksDB"}, 2: {"rocksdb": "RocksDB, v2"}}

_outcomes: dict[str, dict[str, bool]] = {}


def row_key(golden: Any) -> str:
    """``3.5|rocksdb|1|agg``: the table row a golden case fills."""
    return f"{golden.minor}|{golden.provider}|{golden.format_version}|{golden.kind}"


@contextmanager
def cell(golden: Any, column: str) -> Iterator[None]:
    """Record whether the block passes as ``column`` of the golden's row."""
    row = _outcomes.setdefault(row_key(golden), {})
    try:
        yield
    except BaseException:
        row[column] = False
        raise
    row[column] = row.get(column, True)


def write_outcomes(path: str) -> None:
    """Called at the end of a test session: the recorded outcomes as JSON."""
    Path(path).write_text(json.dumps(_outcomes, indent=1, sort_keys=True) + "\n")


def _version_key(key: str) -> tuple:
    minor, provider, fmt, kind = key.split("|")
    kinds = list(KIND_NAMES)
    return (tuple(int(p) for p in minor.split(".")), provider, int(fmt), kinds.index(kind))


def render(matrix: dict[str, dict[str, bool]]) -> str:
    """The Markdown table of a matrix: one row per Spark version, provider and operator kind."""
    lines = [
        "| Spark | state store | operator | read | edit | restart verified |",
        "|---|---|---|---|---|---|",
    ]
    for key in sorted(matrix, key=_version_key):
        minor, provider, fmt, kind = key.split("|")
        outcome = {True: "yes", False: "**no**"}
        edit, restart = (matrix[key].get(column) for column in COLUMNS[1:])
        marks = [outcome.get(edit, "read-only"), outcome.get(restart, "—")]
        read = outcome[matrix[key].get("read", False)]
        name = PROVIDER_NAMES[int(fmt)][provider]
        lines.append(f"| {minor} | {name} | {KIND_NAMES[kind]} | {read} | {' | '.join(marks)} |")
    return "\n".join(lines)


def readme_table(text: str) -> str:
    """The table between the README markers."""
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def write_readme(matrix: dict[str, dict[str, bool]]) -> None:
    text = README.read_text()
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    README.write_text(f"{head}{START}\n{render(matrix)}\n{END}{tail}")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "outcomes.json")
        status = subprocess.call(
            [sys.executable, "-m", "pytest", "-q", "tests/compat"],
            cwd=REPO_ROOT,
            env={**os.environ, ENV: str(out)},
        )
        matrix = json.loads(out.read_text())
    MATRIX_FILE.write_text(json.dumps(matrix, indent=1, sort_keys=True) + "\n")
    write_readme(matrix)
    print(f"wrote {MATRIX_FILE.relative_to(REPO_ROOT)} and the README table (pytest exit {status})")
    return status


if __name__ == "__main__":
    sys.exit(main())
