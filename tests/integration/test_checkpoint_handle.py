"""``Checkpoint(spark, path)`` groups the path-taking verbs; each method does what its verb does."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_savepoint import Checkpoint, savepoint_errors
from spark_savepoint.catalog.errors import NotASavepoint
from tests.support.checkpoint_files import snapshot


def _rows(frame) -> list[tuple]:
    return sorted(tuple(r) for r in frame.collect())


def test_a_checkpoint_takes_restores_lists_and_disposes_savepoints(
    spark, checkpoints, tmp_path: Path
) -> None:
    source = checkpoints[("agg", "hdfs")]
    ckpt = Checkpoint(spark, str(source.checkpoint))
    before = snapshot(source.checkpoint)
    expected = _rows(ckpt.table("agg_0.default"))
    assert len(expected) == 3

    savepoint = ckpt.take_savepoint(str(tmp_path / "sps" / "one"), uids={"0": "by_user"})
    assert _rows(savepoint.table("by_user.default", catalog="sp")) == expected
    listed = Checkpoint(spark, str(tmp_path / "sps")).savepoints()
    assert [(Path(s.path).name, s.rows) for s in listed] == [("one", 3)]

    restored = savepoint.restore_to(str(tmp_path / "restored"), partitions=2)
    assert _rows(restored.table("agg_0.default", catalog="restored")) == expected
    assert restored.inspect(rows=False).operators[0].partitions == 2

    assert "removed" in savepoint.dispose().lower()
    assert not (tmp_path / "sps" / "one").exists()
    assert snapshot(source.checkpoint) == before


def test_a_plain_checkpoint_is_no_savepoint_to_dispose(spark, checkpoints) -> None:
    ckpt = Checkpoint(spark, str(checkpoints[("dedup", "hdfs")].checkpoint))
    before = snapshot(Path(ckpt.path))
    with pytest.raises(NotASavepoint), savepoint_errors():
        ckpt.dispose()
    assert snapshot(Path(ckpt.path)) == before


@pytest.mark.slow
def test_a_checkpoint_counts_purges_and_undoes(spark, private_copy) -> None:
    """hygiene, purge and undo as methods: a TTL-less aggregation has nothing to purge; an
    edit is taken back."""
    query = private_copy("agg", "hdfs", "handle")
    ckpt = Checkpoint(spark, str(query.checkpoint))
    (table,) = ckpt.hygiene().tables
    assert (table.table, table.rows, table.never_evicted) == ("agg_0.default", 3, True)
    assert ckpt.purge(dry_run=True).statements == []  # no watermark, no TTL: nothing to purge
    spark.sql("DELETE FROM handle.agg_0.default WHERE user = 'bob'")
    assert ckpt.undo().report.committed
    assert len(_rows(ckpt.table("agg_0.default", catalog="handle"))) == 3
