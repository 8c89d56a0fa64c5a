"""One import root: the folders catalog/, sql_ext/ and udfs/ install as spark_savepoint's
sub-packages, and no generic top-level name is left for a user's own code to collide with."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import spark_savepoint
from tests.support import REPO_ROOT


def test_public_names_at_the_root() -> None:
    from spark_savepoint import attach, create_savepoint, last_edit, recover, session

    assert all(map(callable, (attach, create_savepoint, last_edit, recover, session)))
    assert set(spark_savepoint.__all__) >= {"session", "attach", "create_savepoint"}


@pytest.mark.parametrize("name", ["catalog", "sql_ext", "udfs"])
def test_no_top_level_package_outside_the_source_tree(name: str, tmp_path: Path) -> None:
    """From any other folder the names do not exist; a user's own ``catalog.py`` wins."""
    (tmp_path / "catalog.py").write_text("MINE = True\n")
    script = (f"import importlib.util, spark_savepoint.{name}\n"
              f"print(importlib.util.find_spec('{name}') is None or "
              f"getattr(__import__('{name}'), 'MINE', False))")  # fmt: skip
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "True"


def test_the_source_folders_refuse_a_top_level_import() -> None:
    """In the repository itself (on sys.path here) ``import catalog`` names the right import."""
    assert importlib.util.find_spec("catalog") is not None  # the folder is visible from here...
    with pytest.raises(ImportError, match="import spark_savepoint.catalog"):
        importlib.import_module("catalog")  # ...but will not load as a second copy


def test_module_entry_point_runs_the_cli() -> None:
    result = subprocess.run([sys.executable, "-m", "spark_savepoint", "--help"], cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0 and "recover" in result.stdout
