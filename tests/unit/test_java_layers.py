"""The Java packages keep the layer order docs/architecture.md documents, checked on the source.

The order is the fenced block after ``<!-- java-layers -->`` in docs/architecture.md: one line
per floor, lowest first; a package may use only packages on lower floors (never one on its own
floor or above). Imports and fully qualified names in code count; comments and strings do not.
"""

from __future__ import annotations

import re
from pathlib import Path

from spark_savepoint.catalog import jar
from tests.support import REPO_ROOT

ROOT = ("dev", "sparksavepoint")
ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"
ROOT_PACKAGE = "PythonEntry"
"""The classes directly in ``dev.sparksavepoint`` form the top floor, named by its class."""


def documented_floors() -> list[list[str]]:
    """The floors of docs/architecture.md's java-layers block, lowest first."""
    text = ARCHITECTURE.read_text()
    block = re.search(r"<!-- java-layers -->\s*```[^\n]*\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no <!-- java-layers --> block"
    return [[name.strip() for name in line.split(",")]
            for line in block.group(1).splitlines() if line.strip()]  # fmt: skip


def package_of(path: Path) -> str:
    """The package below ``dev.sparksavepoint`` of a shared source or a version's adapter."""
    parts = path.parent.parts
    start = next(i for i in range(len(parts)) if parts[i : i + 2] == ROOT) + 2
    return ".".join(parts[start:]) or ROOT_PACKAGE


def _code(text: str) -> str:
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def used_packages(path: Path) -> set[str]:
    """The project packages ``path`` uses in code (imports and qualified names)."""
    code = _code(path.read_text())
    used = set(re.findall(r"\bdev\.sparksavepoint\.((?:[a-z]\w*\.)*[a-z]\w*)\.[A-Z]", code))
    if re.search(r"\bdev\.sparksavepoint\.[A-Z]", code):
        used.add(ROOT_PACKAGE)
    return used - {package_of(path)}


def package_uses() -> dict[str, set[str]]:
    uses: dict[str, set[str]] = {}
    for path in jar.all_sources():
        uses.setdefault(package_of(path), set()).update(used_packages(path))
    return uses


def test_every_package_is_on_a_documented_floor() -> None:
    documented = {name for floor in documented_floors() for name in floor}
    assert set(package_uses()) == documented


def test_packages_use_only_lower_floors() -> None:
    floor_of = {name: i for i, floor in enumerate(documented_floors()) for name in floor}
    offenders = sorted(
        f"{package} (floor {floor_of[package]}) uses {used} (floor {floor_of.get(used)})"
        for package, used_set in package_uses().items()
        for used in used_set
        if floor_of.get(used, len(floor_of)) >= floor_of[package]
    )
    assert offenders == []


def test_the_check_sees_what_it_checks() -> None:
    """The parser finds known uses, so an empty offender list is not an empty scan."""
    uses = package_uses()
    assert "checkpoint" in uses["write"] and "errors" in uses["checkpoint"]
    assert uses["errors"] == {"conf", "adapters"} and uses["conf"] == set()
    assert uses["adapters"] == {"adapters.state"}  # Spark 3.5's adapters use its stand-ins


def test_the_jvm_names_the_catalog_class_as_python_does() -> None:
    """The actions register the catalog by the class name ``conf.Settings`` holds (no import
    of ``catalog``): the class Python's bridge names, which exists."""
    from spark_savepoint.catalog import bridge

    java = REPO_ROOT / "catalog" / "jvm" / "src"
    settings = (java / "dev/sparksavepoint/conf/Settings.java").read_text()
    assert f'CATALOG_CLASS = "{bridge.CATALOG_CLASS}"' in settings
    assert (java / (bridge.CATALOG_CLASS.replace(".", "/") + ".java")).is_file()
