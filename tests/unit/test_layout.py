"""The layering rules the code keeps, checked on the source text."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support import REPO_ROOT

PRODUCT = [REPO_ROOT / folder for folder in ("spark_savepoint", "catalog", "sql_ext", "udfs")]
BRIDGE = REPO_ROOT / "catalog" / "bridge.py"


def _python_files(*folders: Path) -> list[Path]:
    return sorted(path for folder in folders for path in folder.rglob("*.py"))


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}  # fmt: skip
    return names | {node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module}  # fmt: skip


def test_only_the_bridge_talks_to_the_jvm() -> None:
    jvm_names = ("_jvm", "_jsparkSession", "py4j")
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in _python_files(*PRODUCT)
        if path != BRIDGE and any(name in path.read_text() for name in jvm_names)
    ]
    assert offenders == []


def test_product_code_imports_through_the_root() -> None:
    """No module imports ``catalog``, ``sql_ext`` or ``udfs`` as top-level names."""
    offenders = {str(path.relative_to(REPO_ROOT)): sorted(bad) for path in _python_files(*PRODUCT)
                 if (bad := {m for m in _imported_modules(path)
                             if m.split(".")[0] in ("catalog", "sql_ext", "udfs")})}  # fmt: skip
    assert offenders == {}


def test_no_test_module_imports_another() -> None:
    """Tests share helpers through ``tests.support`` only (and the compatibility matrix's
    tooling through ``tests.compat``)."""
    shared = ("tests.support", "tests.compat")
    tests = _python_files(REPO_ROOT / "tests")
    offenders = {str(path.relative_to(REPO_ROOT)): sorted(bad) for path in tests
                 if (bad := {m for m in _imported_modules(path) if m.startswith("tests.")
                             and not m.startswith(shared)})}  # fmt: skip
    assert offenders == {}
