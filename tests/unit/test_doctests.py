"""The examples in the product's docstrings run (``>>>`` lines), module by module."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

SUBPACKAGES = ("spark_savepoint.catalog", "spark_savepoint.sql_ext", "spark_savepoint.udfs")
HOSTED = {"spark_savepoint.sql_ext.bi.superset"}
"""Modules that only their host imports (Superset, in its own virtualenv: test_superset.py)."""


def _modules() -> list[str]:
    """Every module of the package (sub-packages live in their own folders: walk each)."""
    names = ["spark_savepoint", *SUBPACKAGES]
    for package in map(importlib.import_module, SUBPACKAGES):
        names += [
            info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
        ]
    return sorted(set(names) - HOSTED)


MODULES = _modules()


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_modules_with_examples_are_found() -> None:
    with_examples = ("catalog.errors", "sql_ext.servers.views", "sql_ext.cli.local")
    assert {f"spark_savepoint.{name}" for name in with_examples} <= set(MODULES)
