"""The JVM unit tests (``catalog/jvm/test``): pure pieces of the jar tested without a Spark
session, compiled with javac against the jar and run with ``java`` by :func:`run_unit_tests`."""

from __future__ import annotations

import re
import zipfile

from spark_savepoint.catalog.jar import TEST_DIR, all_sources, jar_path, run_unit_tests


def test_jvm_unit_tests_pass() -> None:
    result = run_unit_tests()
    failures = [line for line in result.stdout.splitlines() if line.startswith(("FAIL", "  at"))]
    assert result.returncode == 0, "\n".join(failures) or result.stdout + result.stderr
    summary = re.search(r"(\d+) tests, (\d+) assertions, 0 failed", result.stdout)
    assert summary, result.stdout
    assert int(summary.group(1)) >= 30 and int(summary.group(2)) >= 100, summary.group(0)


def test_unit_tests_stay_out_of_the_jar() -> None:
    with zipfile.ZipFile(jar_path()) as jar:
        names = jar.namelist()
    assert "dev/sparksavepoint/PythonEntry.class" in names
    assert not [name for name in names if "/testing/" in name or name.endswith("Test.class")]
    assert all(TEST_DIR not in source.parents for source in all_sources())
