"""Setting the event-time watermark (``UPDATE <catalog>.query.batches SET watermark = ...``):
the edit commits a batch that starts the restarted real query from the new watermark, with its
state intact, and keeps the query's file sink log whole."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from spark_savepoint import attach, last_edit
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.source_queries import run_windowed_count, write_events

pytestmark = pytest.mark.slow  # real queries of their own, restarted

DAY = "2024-01-01"


@dataclass(frozen=True)
class Run:
    checkpoint: Path
    input: Path
    output: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Input files only; each test runs the query from scratch (the sink log holds absolute
    paths, so a copied output would point at the original's files)."""
    source = tmp_path_factory.mktemp("watermark") / "input"
    source.mkdir()
    write_events(source, "a.json", [f"{DAY} 10:00:01", f"{DAY} 10:00:02"])
    write_events(source, "b.json", [f"{DAY} 10:00:31"])
    return source


@pytest.fixture()
def run(spark, built: Path, tmp_path: Path):
    """The windowed count over a.json and b.json, attached as catalog ``rw`` with its sink:
    window 10:00:00 was emitted (count 2) and evicted, window 10:00:30 is in state (count 1),
    the watermark stands at 10:00:21."""
    source = tmp_path / "input"
    shutil.copytree(built, source)
    result = Run(tmp_path / "ckpt", source, tmp_path / "out")
    run_windowed_count(spark, source, result.output, result.checkpoint)
    attach(spark, str(result.checkpoint), "rw", sink=str(result.output))
    spark.conf.set("spark.savepoint.write.force", "true")
    yield result
    spark.conf.unset("spark.savepoint.write.force")


def emitted_after(spark, batch: int) -> list[tuple[str, int]]:
    """The windows (start time, count) the sink wrote after ``batch``."""
    paths = [
        r.path
        for r in spark.sql(f"SELECT path FROM rw.sink.files WHERE batch_id > {batch}").collect()
    ]
    if not paths:
        return []
    rows = spark.read.parquet(*paths).collect()
    return sorted((r.start.strftime("%H:%M:%S"), r["count"]) for r in rows)


def watermark(spark) -> str:
    row = spark.sql("SELECT * FROM rw.query.batches ORDER BY batch_id DESC LIMIT 1").first()
    return row.watermark.strftime("%H:%M:%S")


def test_set_back_late_input_counts_again(spark, run) -> None:
    last = last_batch(run.checkpoint)
    spark.sql(f"UPDATE rw.query.batches SET watermark = TIMESTAMP '{DAY} 10:00:00' "
              f"WHERE batch_id = {last}")  # fmt: skip
    report = last_edit(spark)
    assert report.batch_id == last + 1 and report.table == "query.batches"
    assert "moves back" in report.warning and "emitted again" in report.warning
    assert watermark(spark) == "10:00:00"
    batches = spark.sql(f"SELECT * FROM rw.query.batches WHERE batch_id = {last + 1}").first()
    assert batches.watermark_ms == batches.next_watermark_ms

    write_events(run.input, "c.json", [f"{DAY} 10:00:05"])  # late before the edit
    write_events(run.input, "d.json", [f"{DAY} 10:00:50"])  # moves the watermark to 10:00:40
    run_windowed_count(spark, run.input, run.output, run.checkpoint)
    assert emitted_after(spark, last + 1) == [("10:00:00", 1), ("10:00:30", 1)], (
        "10:00:05 was counted in a new window 10:00:00; window 10:00:30 kept its state"
    )
    assert spark.read.parquet(str(run.output)).count() == 3, "the sink log reads whole"


def test_set_forward_input_becomes_late_and_state_is_evicted(spark, run) -> None:
    last = last_batch(run.checkpoint)
    spark.sql(f"UPDATE rw.query.batches SET watermark_ms = watermark_ms + 24000 "
              f"WHERE batch_id = {last}")  # fmt: skip
    assert watermark(spark) == "10:00:45"
    assert "moves forward" in last_edit(spark).warning

    write_events(run.input, "c.json", [f"{DAY} 10:00:38"])  # would count into 10:00:30
    run_windowed_count(spark, run.input, run.output, run.checkpoint)
    assert emitted_after(spark, last + 1) == [("10:00:30", 1)], (
        "10:00:38 was dropped as late and window 10:00:30 was emitted with its old count"
    )


def test_the_same_watermark_commits_nothing(spark, run) -> None:
    last = last_batch(run.checkpoint)
    before = snapshot(run.checkpoint)
    spark.sql(f"UPDATE rw.query.batches SET next_watermark_ms = next_watermark_ms "
              f"WHERE batch_id = {last}")  # fmt: skip
    assert not last_edit(spark).committed
    assert snapshot(run.checkpoint) == before


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("UPDATE rw.query.batches SET watermark_ms = 5 WHERE batch_id = 0", "batch 0 has run"),
        ("UPDATE rw.query.batches SET provider = 'rocksdb'", "column provider cannot change"),
        ("DELETE FROM rw.query.batches WHERE batch_id = 0", "neither added nor removed"),
        (
            "UPDATE rw.query.batches SET watermark_ms = 5, next_watermark_ms = 6 "
            "WHERE batch_id = 2",
            "two different",
        ),
        ("UPDATE rw.query.batches SET watermark = NULL WHERE batch_id = 2", "cannot be NULL"),
        ("UPDATE rw.query.batches SET watermark_ms = -1 WHERE batch_id = 2", "before 1970"),
    ],
)
def test_other_edits_of_the_batches_change_nothing(spark, run, statement, message) -> None:
    assert last_batch(run.checkpoint) == 2
    before, output = snapshot(run.checkpoint), snapshot(run.output)
    with pytest.raises(Exception, match=f"SAVEPOINT_BAD_WATERMARK.*{message}"):
        spark.sql(statement)
    assert snapshot(run.checkpoint) == before and snapshot(run.output) == output


def test_an_edit_keeps_a_compacting_sink_log_whole(spark, run) -> None:
    """With a sink log compacted every 2 batches, batch 3 (the edit's) is a compaction batch:
    without its entry the restarted query would fail compacting at batch 5."""
    spark.conf.set("spark.sql.streaming.fileSink.log.compactInterval", "2")
    try:
        shutil.rmtree(run.checkpoint)
        shutil.rmtree(run.output)
        run_windowed_count(spark, run.input, run.output, run.checkpoint)
        assert (run.output / "_spark_metadata" / "1.compact").exists()
        spark.sql("UPDATE rw.query.batches SET watermark = TIMESTAMP '2024-01-01 10:00:25' "
                  "WHERE batch_id = 2")  # fmt: skip
        assert (run.output / "_spark_metadata" / "3.compact").exists()
        write_events(run.input, "c.json", [f"{DAY} 10:00:32"])
        write_events(run.input, "d.json", [f"{DAY} 10:00:55"])
        run_windowed_count(spark, run.input, run.output, run.checkpoint)
        assert last_batch(run.checkpoint) >= 5
        assert (run.output / "_spark_metadata" / "5.compact").exists()
        rows = spark.read.parquet(str(run.output)).collect()
        assert sorted((r.start.strftime("%H:%M:%S"), r["count"]) for r in rows) == [
            ("10:00:00", 2),
            ("10:00:30", 2),
        ]
    finally:
        spark.conf.unset("spark.sql.streaming.fileSink.log.compactInterval")
