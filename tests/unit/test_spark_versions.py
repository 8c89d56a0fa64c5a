"""One jar per Spark version the tool runs on, each up to date with its sources; the jar of a
version is chosen by its minor; any other Spark is refused in one line. No JVM."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spark_savepoint.catalog import jar
from spark_savepoint.catalog.errors import SparkVersionUnsupported
from tests.support import REPO_ROOT


@pytest.mark.parametrize("minor", jar.SPARK_VERSIONS)
def test_every_committed_jar_is_built_from_the_sources(minor: str) -> None:
    stamp = jar.JVM_DIR / (jar.jar_name(minor) + ".sha256")
    assert (jar.JVM_DIR / jar.jar_name(minor)).is_file()
    assert stamp.read_text().strip() == jar.source_digest(minor), (
        f"the jar of Spark {minor} is out of date: run `python -m tests.support.spark_jars`"
    )


def test_the_jar_is_chosen_by_the_spark_minor() -> None:
    assert jar.jar_path("3.5.9") == jar.JVM_DIR / "spark-savepoint-3.5.jar"
    assert jar.jar_path("4.0.5") == jar.JVM_DIR / "spark-savepoint-4.0.jar"
    assert jar.jar_path("4.1.4") == jar.JVM_DIR / "spark-savepoint-4.1.jar"
    assert jar.jar_path("4.2.1") == jar.JVM_DIR / "spark-savepoint-4.2.jar"
    assert jar.jar_path("4.3.0") == jar.JVM_DIR / "spark-savepoint-4.3.jar"


def test_a_version_takes_each_adapter_from_the_newest_folder_at_or_below_it() -> None:
    for minor in jar.SPARK_VERSIONS:
        adapters = jar.adapter_sources(minor)
        names = [Path(*source.relative_to(jar.ADAPTER_DIR).parts[1:]) for source in adapters]
        assert len(names) == len(set(names)), names  # one source per adapter
        for source in adapters:
            folder = source.relative_to(jar.ADAPTER_DIR).parts[0]
            assert jar._version_key(folder) <= jar._version_key(minor)
            newer = [f for f in jar.ADAPTER_DIR.iterdir()
                     if jar._version_key(folder) < jar._version_key(f.name)
                     <= jar._version_key(minor)]  # fmt: skip
            assert not any((f / source.relative_to(jar.ADAPTER_DIR / folder)).exists()
                           for f in newer)  # fmt: skip
    chosen = {
        minor: {
            source.name: source.relative_to(jar.ADAPTER_DIR).parts[0]
            for source in jar.adapter_sources(minor)
            if source.parent.name == "adapters"  # the roles, not a version's stand-ins
        }
        for minor in jar.SPARK_VERSIONS
    }
    assert chosen["4.1"]["HdfsStoreMapBase.java"] == "3.5"  # UnsafeRow values
    assert chosen["4.3"]["HdfsStoreMapBase.java"] == "4.2"  # UnsafeRowWrapper, since 4.2
    assert chosen["4.0"]["ListWrites.java"] == "3.5" and chosen["4.3"]["ListWrites.java"] == "4.1"
    assert chosen["3.5"]["SchemaFiles.java"] == "3.5" and chosen["4.3"]["SchemaFiles.java"] == "4.0"
    assert {names.keys() == chosen["4.0"].keys() for names in chosen.values()} == {True}


def test_the_stand_ins_of_a_version_are_only_in_its_jar_and_older() -> None:
    stand_in = jar.ADAPTER_DIR / "3.5/dev/sparksavepoint/adapters/state/StateStore.java"
    assert stand_in in jar.adapter_sources("3.5")
    assert all(stand_in not in jar.adapter_sources(minor) for minor in ("4.0", "4.3"))


def test_package_moves_apply_to_the_versions_before_them() -> None:
    moved = "org.apache.spark.sql.execution.streaming.runtime."
    pairs = [(pair.shared, pair.older) for pair in jar.relocations("4.0")]
    assert (moved, "org.apache.spark.sql.execution.streaming.") in pairs
    assert jar.relocations("4.1") == jar.relocations("4.3") == []
    assert set(jar.relocations("4.0")) < set(jar.relocations("3.5"))
    text = f"import {moved}StreamExecution;"
    assert jar._relocated(text, jar.relocations("4.0")) == (
        "import org.apache.spark.sql.execution.streaming.StreamExecution;"
    )


def test_a_class_is_renamed_as_a_whole_name_and_not_in_its_stand_ins() -> None:
    state = "org.apache.spark.sql.execution.streaming.state."
    text = f"import {state}StateStore;\nimport {state}StateStoreId;"
    shared = jar.SOURCE_DIR / "dev/sparksavepoint/store/StatePartition.java"
    applied = [pair for pair in jar.relocations("3.5") if pair.applies_to(shared)]
    assert jar._relocated(text, applied) == (
        f"import dev.sparksavepoint.adapters.state.StateStore;\nimport {state}StateStoreId;"
    )
    stand_in = jar.ADAPTER_DIR / "3.5/dev/sparksavepoint/adapters/state/StateStore.java"
    own = [pair for pair in jar.relocations("3.5") if pair.applies_to(stand_in)]
    assert jar._relocated(text, own) == text  # it names Spark's own StateStore
    adapter = jar.ADAPTER_DIR / "3.5/dev/sparksavepoint/adapters/Stores.java"  # 3.5 and 4.0's
    assert all(pair.applies_to(adapter) for pair in jar.relocations("3.5"))


@pytest.mark.parametrize("version", ["3.4.4", "2.4.8", "4.4.0"])
def test_an_unsupported_spark_is_one_line(version: str) -> None:
    with pytest.raises(SparkVersionUnsupported) as refused:
        jar.jar_path(version)
    assert str(refused.value) == (
        f"[SAVEPOINT_SPARK_VERSION] spark-savepoint runs on Spark 3.5, 4.0, 4.1, 4.2 and 4.3, "
        f"not on Spark {version}: run it with "
        "pyspark 3.5.x to 4.3.x (it reads checkpoints that older Spark versions wrote there "
        "too)."
    )
    assert refused.value.error_class == "SAVEPOINT_SPARK_VERSION"


def test_the_pyspark_requirement_is_the_range_of_the_jars() -> None:
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    lower, upper = re.findall(r'"pyspark\[sql\]>=(\d+\.\d+)\.0,<(\d+\.\d+)"', pyproject)[0]
    assert lower == jar.SPARK_VERSIONS[0]
    newest = jar.SPARK_VERSIONS[-1].split(".")
    assert upper == f"{newest[0]}.{int(newest[1]) + 1}"
