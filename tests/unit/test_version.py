"""The package says its version and that it is typed."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import re

import spark_savepoint
from tests.support import REPO_ROOT


def test_the_version_is_the_installed_distributions() -> None:
    assert spark_savepoint.__version__ == importlib.metadata.version("spark-savepoint")
    declared = re.search(r'^version = "(.+)"$', (REPO_ROOT / "pyproject.toml").read_text(), re.M)
    assert declared is not None and spark_savepoint.__version__ == declared.group(1)


def test_the_package_is_marked_typed() -> None:
    assert (importlib.resources.files("spark_savepoint") / "py.typed").is_file()
