"""transformWithState checkpoints copied elsewhere read and edit where they are.

Spark records a transformWithState operator's state schema files by absolute path
(``state/<op>/_metadata/v2/*``) and opens them there, so a copy whose original is gone cannot be
read by Spark's own reader as it is. The catalog reads the copy's own ``_stateSchema`` files
instead (``RelocatedSchemaFs`` in the reader's session); Spark's reader, the reference, reads a
second copy whose metadata names them (``relocate_schema_paths``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spark_savepoint import attach, savepoint_errors
from spark_savepoint.catalog.errors import MovedCheckpoint
from tests.compat.golden import Golden, as_compared, goldens, relocate_schema_paths
from tests.compat.state_reader import read_state

CATALOG = "moved"
TWS = [g for g in goldens() if g.kind == "tws"]


def _moved(golden: Golden, root: Path) -> Path:
    """A plain copy of the golden elsewhere: its metadata still names the schema files where it
    was built, and they are gone there."""
    copy = root / "moved"
    shutil.copytree(golden.folder / "checkpoint", copy)
    return copy


def _spark_reads(spark, checkpoint: Path, root: Path, options: dict) -> list:
    """What Spark's reader reads of a copy of ``checkpoint`` whose metadata names its files."""
    relocated = root / f"relocated-{len(list(root.glob('relocated-*')))}"
    shutil.copytree(checkpoint, relocated)
    relocate_schema_paths(relocated)
    return as_compared(read_state(spark, relocated, options))


@pytest.mark.parametrize("golden", [pytest.param(g, id=g.id) for g in TWS])
@pytest.mark.slow
def test_a_moved_copy_reads_as_spark_reads_it_where_it_was_written(
    spark, golden: Golden, tmp_path: Path
) -> None:
    copy = _moved(golden, tmp_path)
    attach(spark, str(copy), CATALOG)
    for state, expected in golden.expected["state"].items():
        got = spark.table(f"{CATALOG}.tws_0.{state}").select("*", "partition_id").collect()
        assert as_compared(got) == as_compared(expected["rows"]), state


@pytest.mark.slow
def test_a_moved_copy_takes_edits(spark, tmp_path: Path) -> None:
    golden = next(g for g in TWS if g.version == "4.3.0" and g.format_version == 1)
    copy = _moved(golden, tmp_path)
    attach(spark, str(copy), CATALOG)
    options = golden.expected["state"]["count"]["options"]
    before = _spark_reads(spark, copy, tmp_path, options)
    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        spark.sql(f"DELETE FROM {CATALOG}.tws_0.count WHERE user = 'alice'")
        spark.sql(f"INSERT INTO {CATALOG}.tws_0.count VALUES ('dave', 10)")
    finally:
        spark.conf.unset("spark.savepoint.write.force")
    after = _spark_reads(spark, copy, tmp_path, options)
    assert [r[:2] for r in after] == sorted(
        [r[:2] for r in before if r[0] != "alice"] + [("dave", 10)]
    )


def test_a_copy_without_its_schema_files_says_what_is_missing(spark, tmp_path: Path) -> None:
    golden = next(g for g in TWS if g.version == "4.3.0")
    copy = _moved(golden, tmp_path)
    shutil.rmtree(copy / "state" / "0" / "_stateSchema")
    attach(spark, str(copy), CATALOG)
    missing = r"tws_0 .*where the checkpoint was written .* not all of them are in this checkpoint"
    with pytest.raises(MovedCheckpoint, match=missing), savepoint_errors():
        spark.table(f"{CATALOG}.tws_0.count").collect()
