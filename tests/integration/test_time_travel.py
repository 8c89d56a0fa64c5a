"""VERSION AS OF <batchId> and TIMESTAMP AS OF read older committed batches."""

from __future__ import annotations

import os

import pytest

from spark_savepoint import attach
from tests.support.state_rows import leaf_rows


@pytest.fixture()
def agg(spark, checkpoints) -> str:
    ckpt = str(checkpoints[("agg", "rocksdb")].checkpoint)
    attach(spark, ckpt, "tt")
    return ckpt


def test_version_as_of_reads_each_committed_batch(spark, agg: str) -> None:
    batches = sorted(int(n) for n in os.listdir(os.path.join(agg, "commits")) if n.isdigit())
    assert len(batches) >= 2
    for batch in batches:
        ours = spark.sql(f"SELECT *, partition_id FROM tt.agg_0.default VERSION AS OF {batch}")
        raw = spark.read.format("statestore").option("batchId", batch).load(agg)
        assert leaf_rows(ours) == leaf_rows(raw)
    latest = leaf_rows(spark.table("tt.agg_0.default"))
    assert leaf_rows(spark.sql("SELECT * FROM tt.agg_0.default VERSION AS OF 0")) != latest


def test_timestamp_as_of_maps_to_commit_times(spark, agg: str) -> None:
    first_commit_ms = int(os.path.getmtime(os.path.join(agg, "commits", "0")) * 1000)
    at_first = spark.sql(
        "SELECT *, partition_id FROM tt.agg_0.default"
        f" TIMESTAMP AS OF timestamp_millis({first_commit_ms})"
    )
    assert leaf_rows(at_first) == leaf_rows(
        spark.read.format("statestore").option("batchId", 0).load(agg)
    )
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_BATCH_AT_TIME.*committed at or before"):
        spark.sql("SELECT * FROM tt.agg_0.default TIMESTAMP AS OF '2001-01-01'").collect()


def test_metadata_as_of_version(spark, agg: str) -> None:
    rows = spark.sql("SELECT batch_id FROM tt.metadata VERSION AS OF 0").collect()
    assert {r.batch_id for r in rows} == {0}
