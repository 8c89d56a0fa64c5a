"""SQL table functions savepoint_metadata(path) and savepoint_state(path, uid, state)."""

from __future__ import annotations

import pytest

from tests.support.state_rows import leaf_rows


def test_savepoint_metadata_needs_no_catalog(spark, checkpoints) -> None:
    ckpt = str(checkpoints[("tws", "rocksdb")].checkpoint)
    rows = spark.sql(f"SELECT uid, state, state_kind FROM savepoint_metadata('{ckpt}')").collect()
    assert [tuple(r) for r in rows] == [
        ("tws_0", "count", "value"),
        ("tws_0", "history", "list"),
        ("tws_0", "items", "map"),
        ("tws_0", "timers", "timers"),
        ("sources", "offsets", "operator state"),
        ("sources", "files", "operator state"),
        ("query", "batches", "operator state"),
        ("query", "edits", "operator state"),
    ]


def test_savepoint_state_reads_like_spark(spark, checkpoints) -> None:
    ckpt = str(checkpoints[("agg", "rocksdb")].checkpoint)
    for batch in (0, 1):
        ours = spark.sql(
            f"SELECT *, partition_id FROM savepoint_state('{ckpt}', 'agg_0', 'default', {batch})"
        )
        raw = spark.read.format("statestore").option("batchId", batch).load(ckpt)
        assert leaf_rows(ours) == leaf_rows(raw)


def test_table_function_arguments_are_checked(spark, checkpoints) -> None:
    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    with pytest.raises(Exception, match=r"SAVEPOINT_BAD_ARGUMENTS.*savepoint_state takes"):
        spark.sql(f"SELECT * FROM savepoint_state('{ckpt}')").collect()
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SUCH_STATE.*'nope'.*States: default"):
        spark.sql(f"SELECT * FROM savepoint_state('{ckpt}', 'agg_0', 'nope')").collect()
