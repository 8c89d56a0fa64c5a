"""The error registry (``catalog/error-conditions.json``) and the text generated from it: the
exception classes of ``catalog/errors.py`` and the class tables of ``docs/errors.md``, each
between markers. ``python -m tests.support.error_registry --write`` regenerates both;
``tests/unit/test_error_registry.py`` checks they are in step.

The registry maps each ``SAVEPOINT_*`` class, in the order the docs list them, to:

- ``sqlState``: what ``getSqlState()`` returns (the JVM reads it from the jar's copy);
- ``python``: the :class:`SavepointError` subclass, with ``pythonBases`` when it has other bases
  than ``SavepointError``;
- ``section``, ``meaning``, ``example``, ``fix``, ``tests``: the docs table's heading and cells
  (Markdown; ``meaning`` is also the exception's docstring).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

from tests.support import REPO_ROOT

REGISTRY = REPO_ROOT / "catalog" / "error-conditions.json"
ERRORS_PY = REPO_ROOT / "catalog" / "errors.py"
ERRORS_MD = REPO_ROOT / "docs" / "errors.md"
COMMAND = "python -m tests.support.error_registry --write"
PY_START = "# <error-conditions> generated from error-conditions.json: do not edit by hand"
PY_END = "# </error-conditions>"
MD_START = f"<!-- error-conditions: generated from catalog/error-conditions.json by {COMMAND} -->"
MD_END = "<!-- /error-conditions -->"
FIELDS = ("sqlState", "python", "pythonBases", "section", "meaning", "example", "fix", "tests")
DOC_COLUMNS = ("class", "SQLSTATE", "Python", "meaning", "example", "what to do", "test cases")


def load(path: Path = REGISTRY) -> dict[str, dict]:
    """The registry: ``SAVEPOINT_*`` class -> its entry, in the file's order."""
    return json.loads(path.read_text())


def _docstring(markdown: str) -> str:
    """``meaning`` as a sentence, with reST literals for Markdown's code spans."""
    text = re.sub(r"`([^`]+)`", r"``\1``", markdown)
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _python_class(name: str, entry: dict) -> str:
    bases = ", ".join(entry.get("pythonBases", ["SavepointError"]))
    doc = textwrap.wrap(_docstring(entry["meaning"]), width=96, initial_indent='    """',
                        subsequent_indent="    ", break_on_hyphens=False)  # fmt: skip
    return "\n".join([
        f"class {entry['python']}({bases}):", *doc[:-1], doc[-1] + '"""', "",
        f'    error_class = "{name}"', f'    sql_state = "{entry["sqlState"]}"',
    ])  # fmt: skip


def python_block(registry: dict[str, dict]) -> str:
    """The generated exception classes of ``catalog/errors.py``, one per registry entry."""
    return "\n\n\n".join(_python_class(name, entry) for name, entry in registry.items())


def _cell(markdown: str) -> str:
    return markdown.replace("|", "\\|")


def docs_block(registry: dict[str, dict]) -> str:
    """The class tables of ``docs/errors.md``: one table per section, in the registry's order."""
    sections: dict[str, list[str]] = {}
    for name, e in registry.items():
        cells = [f"`{name}`", f"`{e['sqlState']}`", f"`{e['python']}`", e["meaning"],
                 e["example"], e["fix"], e["tests"]]  # fmt: skip
        sections.setdefault(e["section"], []).append(f"| {' | '.join(map(_cell, cells))} |")
    header = [f"| {' | '.join(DOC_COLUMNS)} |", "|" + "---|" * len(DOC_COLUMNS)]
    return "\n\n".join(f"### {title}\n\n" + "\n".join(header + rows)
                       for title, rows in sections.items())  # fmt: skip


def between(text: str, start: str, end: str) -> str:
    """What ``text`` holds between the markers, without the blank lines at its edges."""
    return text.split(start, 1)[1].split(end, 1)[0].strip("\n")


def _replace(path: Path, start: str, end: str, block: str, gap: str) -> None:
    head, rest = path.read_text().split(start, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(f"{head}{start}{gap}{block}{gap}{end}{tail}")


def write() -> None:
    """Regenerate the classes of ``catalog/errors.py`` and the tables of ``docs/errors.md``."""
    registry = load()
    _replace(ERRORS_PY, PY_START, PY_END, python_block(registry), "\n\n\n")
    _replace(ERRORS_MD, MD_START, MD_END, docs_block(registry), "\n\n")


def main(argv: list[str] | None = None) -> int:
    """Print the registry's classes; with ``--write``, regenerate the text made from it."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.error_registry")
    parser.add_argument("--write", action="store_true", help="regenerate errors.py and the docs")
    if parser.parse_args(argv).write:
        write()
    for name, entry in load().items():
        print(f"{name:34} {entry['sqlState']}  {entry['python']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
