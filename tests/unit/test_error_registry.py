"""The error registry (``catalog/error-conditions.json``) checks itself: every ``SAVEPOINT_*``
class the code raises is registered, and the exception classes of ``catalog/errors.py``, the
tables of ``docs/errors.md`` and the jar's copy are made from it. No Spark, no JVM."""

from __future__ import annotations

import ast
import re
import zipfile
from pathlib import Path

import pytest

from spark_savepoint.catalog import errors, jar
from tests.support import REPO_ROOT
from tests.support.error_registry import (
    ERRORS_MD,
    ERRORS_PY,
    FIELDS,
    MD_END,
    MD_START,
    PY_END,
    PY_START,
    between,
    docs_block,
    load,
    python_block,
)

REGISTRY = load()
CLASS = re.compile(r"\bSAVEPOINT_[A-Z_]*[A-Z]\b")
PYTHON_PRODUCT = [REPO_ROOT / name for name in ("spark_savepoint", "catalog", "sql_ext", "udfs")]
JAVA_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)+\'', re.S)
"""Java comments, string literals and char literals, in the order they start."""


def _java_literals(path: Path) -> list[str]:
    return [t for t in JAVA_TOKENS.findall(path.read_text()) if t.startswith('"')]


def _python_literals(path: Path) -> list[str]:
    """The string constants of a module, f-strings' parts included, docstrings not."""
    tree = ast.parse(path.read_text(), str(path))
    expressions = [node.value for node in ast.walk(tree) if isinstance(node, ast.Expr)]
    docstrings = {id(value) for value in expressions if isinstance(value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]  # fmt: skip


def _raised_classes() -> dict[str, set[str]]:
    """Every ``SAVEPOINT_*`` class in a string literal of the product -> the files it is in."""
    found: dict[str, set[str]] = {}
    python = [path for folder in PYTHON_PRODUCT for path in sorted(folder.rglob("*.py"))]
    files = [(p, _java_literals) for p in jar.all_sources()]
    files += [(p, _python_literals) for p in python]
    for path, literals in files:
        for name in CLASS.findall("\n".join(literals(path))):
            found.setdefault(name, set()).add(str(path.relative_to(REPO_ROOT)))
    return found


def test_every_class_the_code_raises_is_registered() -> None:
    raised = _raised_classes()
    assert len(raised) >= 50 and "SAVEPOINT_JAR" in raised and "SAVEPOINT_INTERNAL" in raised
    known = {*REGISTRY, errors.SavepointError.error_class}  # the base's, for an unknown class
    unregistered = {name: sorted(files) for name, files in raised.items() if name not in known}
    assert unregistered == {}


def test_the_scan_skips_comments_and_docstrings(tmp_path: Path) -> None:
    java = tmp_path / "A.java"
    java.write_text('// "SAVEPOINT_A"\n/* "SAVEPOINT_B" */ x("SAVEPOINT_C", \'"\', "//");\n')
    module = tmp_path / "a.py"
    module.write_text('"""SAVEPOINT_D"""\nraise E(f"[SAVEPOINT_E] {x}")\n')
    assert CLASS.findall(" ".join(_java_literals(java) + _python_literals(module))) == [
        "SAVEPOINT_C", "SAVEPOINT_E"
    ]  # fmt: skip


def test_each_entry_has_a_sql_state_a_python_class_and_its_docs() -> None:
    for name, entry in REGISTRY.items():
        assert set(entry) <= set(FIELDS), name
        assert set(FIELDS) - set(entry) <= {"pythonBases"}, name
        assert re.fullmatch(r"SAVEPOINT_[A-Z_]*[A-Z]", name), name
        assert re.fullmatch(r"[0-9A-Z]{5}", entry["sqlState"]), name
        assert entry["python"].isidentifier() and entry["python"][0].isupper(), name
        assert all(entry[field].strip() for field in ("meaning", "example", "fix", "tests")), name
    pythons = [entry["python"] for entry in REGISTRY.values()]
    assert len(set(pythons)) == len(pythons)


def test_errors_py_classes_are_generated_from_the_registry() -> None:
    assert between(ERRORS_PY.read_text(), PY_START, PY_END) == python_block(REGISTRY), (
        "run: python -m tests.support.error_registry --write"
    )


def test_every_class_is_importable_by_its_registered_name() -> None:
    for name, entry in REGISTRY.items():
        cls = getattr(errors, entry["python"])
        assert (cls.error_class, cls.sql_state) == (name, entry["sqlState"])
        assert errors.BY_CLASS[name] is cls
        bases = [base.__name__ for base in cls.__bases__]
        assert bases == entry.get("pythonBases", ["SavepointError"]), name
    grouping = {*errors.BY_CLASS.values(), errors.CheckpointNotFound}
    for cls in grouping:
        assert cls.sql_state == REGISTRY[cls.error_class]["sqlState"], cls.__name__


def test_docs_tables_are_generated_from_the_registry() -> None:
    assert between(ERRORS_MD.read_text(), MD_START, MD_END) == docs_block(REGISTRY), (
        "run: python -m tests.support.error_registry --write"
    )


def test_the_docs_tables_list_each_registered_class_once() -> None:
    rows = [line for line in ERRORS_MD.read_text().splitlines() if line.startswith("| `SAVEPOINT_")]
    cells = [[cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row)[1:-1]]
             for row in rows]  # fmt: skip
    documented = [(c[0].strip("`"), c[1].strip("`"), c[3]) for c in cells]
    assert [name for name, _, _ in documented] == list(REGISTRY)
    for name, state, meaning in documented:
        assert (state, meaning) == (REGISTRY[name]["sqlState"], REGISTRY[name]["meaning"]), name


def test_the_docs_name_only_registered_classes() -> None:
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
    named = {name for page in pages for name in CLASS.findall(page.read_text())}
    assert named - set(REGISTRY) <= {"SAVEPOINT_X"}  # the placeholder of "[SAVEPOINT_X] ..."


def test_the_jar_carries_the_registry() -> None:
    with zipfile.ZipFile(jar.jar_path()) as archive:
        for name, resource in jar.RESOURCES.items():
            assert archive.read(name) == resource.read_bytes(), name
    assert jar.ERROR_CONDITIONS in jar.RESOURCES.values()


def test_jar_raises_the_registered_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jar, "_jdk_tool", lambda name: None)
    with pytest.raises(errors.JarBuildError) as raised:
        jar._javac()
    assert str(raised.value).startswith("[SAVEPOINT_JAR] javac not found: install a JDK 17+")
    assert issubclass(errors.JarBuildError, RuntimeError)  # as jar.py raised before
    assert raised.value.getSqlState() == "58000"
    assert type(errors.from_message(str(raised.value))) is errors.JarBuildError
