"""Every ``spark.savepoint.*`` setting is declared once, in ``conf/Settings.java``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from spark_savepoint.catalog import jar, settings
from tests.support import REPO_ROOT

PRODUCT_PYTHON = [REPO_ROOT / name for name in ("catalog", "sql_ext", "udfs", "spark_savepoint")]
INTERNAL = {"RELOCATED_SCHEMA_FROM", "RELOCATED_SCHEMA_TO", "RELOCATED_SCHEMA_DELEGATE"}
"""Hadoop settings the tool sets and reads itself inside one read: not for users or Python."""


def test_python_names_every_user_setting_java_declares() -> None:
    declared = settings.declared()
    assert set(declared) - INTERNAL == {"WRITE_DRY_RUN", "WRITE_FORCE", "WRITE_PARTITIONED_BY",
                                        "WRITE_TRANSACTION", "READ_ONLY",
                                        "MAX_PARTITIONS", "CHANGES_FROM_CHANGE_FILES",
                                        "COPY_ON_DRIVER_BYTES"}  # fmt: skip
    for constant, name in declared.items():
        if constant not in INTERNAL:
            assert getattr(settings, constant) == name


def _python_literals(path: Path) -> list[tuple[int, str]]:
    """String constants in code (docstrings aside): (line, text)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}  # fmt: skip
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]  # fmt: skip


def _java_literals(path: Path) -> list[tuple[int, str]]:
    """String literals in Java code (comments aside): (line, text)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), path.read_text(),
                  flags=re.S)  # fmt: skip
    code = [re.sub(r"//.*", "", line) for line in text.splitlines()]
    return [(number, literal) for number, line in enumerate(code, 1)
            for literal in re.findall(r'"((?:\\.|[^"\\])*)"', line)]  # fmt: skip


def test_no_setting_is_spelled_outside_its_declaration() -> None:
    setting = re.compile(r"spark\.savepoint\.[A-Za-z]")
    found = [(path, number, text) for path in jar.all_sources()
             for number, text in _java_literals(path)]  # fmt: skip
    found += [(path, number, text) for folder in PRODUCT_PYTHON for path in folder.rglob("*.py")
              for number, text in _python_literals(path)]  # fmt: skip
    offenders = [f"{path.relative_to(REPO_ROOT)}:{number}: {text}" for path, number, text in found
                 if path != settings.SOURCE and setting.search(text)]  # fmt: skip
    assert offenders == []


def test_the_literal_scan_sees_literals() -> None:
    """The scans find the declarations themselves, so an empty offender list means something."""
    assert any("spark.savepoint.write.force" in text for _, text in _java_literals(settings.SOURCE))
    assert (4, "spark.savepoint.x") not in _python_literals(Path(__file__))
