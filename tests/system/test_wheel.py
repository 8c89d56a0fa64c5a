"""What ``pip install .`` installs: one top-level package with the jar and its sources inside."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from spark_savepoint.catalog.jar import SPARK_VERSIONS, jar_name
from tests.support import REPO_ROOT


@pytest.mark.slow
def test_the_wheel_installs_one_import_root(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path),
         str(REPO_ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    (wheel,) = tmp_path.glob("spark_savepoint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = archive.read(next(n for n in names if n.endswith("top_level.txt")))
    assert {name.split("/")[0] for name in names} == {
        "spark_savepoint", wheel.name.split("-py3")[0] + ".dist-info"}  # fmt: skip
    assert top_level.decode().split() == ["spark_savepoint"]
    package = {"/".join(name.split("/")[:2]) for name in names}
    assert {"spark_savepoint/catalog", "spark_savepoint/sql_ext", "spark_savepoint/udfs"} <= package
    added = ("sql_ext/cli/__init__.py", "sql_ext/servers/__init__.py", "py.typed")
    assert {f"spark_savepoint/{name}" for name in added} <= set(names)
    for minor in SPARK_VERSIONS:  # one prebuilt jar per Spark the tool runs on, stamped
        for name in (jar_name(minor), jar_name(minor) + ".sha256"):
            assert f"spark_savepoint/catalog/jvm/{name}" in names
    assert any(name.endswith("PythonEntry.java") for name in names)  # sources, to rebuild the jar
    assert any(name.endswith("spark/4.2/dev/sparksavepoint/adapters/HdfsStoreMapBase.java")
               for name in names)  # fmt: skip
    assert not [name for name in names if "/jvm/test/" in name]
    # an installed copy has all its jars' stamps cover (relocations too): its jars are current
    installed = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)
    check = (
        "from spark_savepoint.catalog import jar\n"
        "for minor in jar.SPARK_VERSIONS:\n"
        "    stamp = jar.JVM_DIR / (jar.jar_name(minor) + '.sha256')\n"
        "    print(minor, stamp.read_text().strip() == jar.source_digest(minor))\n"
    )
    current = subprocess.run([sys.executable, "-c", check], cwd=installed, text=True,
                             capture_output=True, env={"PYTHONPATH": str(installed)},
                             timeout=120)  # fmt: skip
    assert current.stdout.split() == [word for m in SPARK_VERSIONS for word in (m, "True")], (
        current.stderr[-2000:]
    )
