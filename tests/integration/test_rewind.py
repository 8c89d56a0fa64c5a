"""Rewinding and advancing source positions (``UPDATE <catalog>.sources.offsets``): the edit
commits a batch with the new positions and the old state, and the restarted real query reads
exactly what the new positions say, adding it to its state."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from spark_savepoint import attach, last_edit
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.source_queries import count_until, rate_stream, run_file_count, write_json

pytestmark = pytest.mark.slow  # real queries of their own, restarted

RATE = 5  # rows per second; the rate source's value v belongs to second v // RATE


@dataclass(frozen=True)
class Built:
    files: Path
    input: Path
    rate: Path


@pytest.fixture(scope="module")
def built(spark, tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("rewind")
    source = root / "input"
    source.mkdir()
    write_json(source, "a.json", [1, 2])
    write_json(source, "b.json", [2, 3])
    run_file_count(spark, source, root / "files")
    write_json(source, "c.json", [4, 1])
    run_file_count(spark, source, root / "files")
    count_until(spark, rate_stream(spark, RATE), F.col("value"), root / "rate", 3)
    return Built(root / "files", source, root / "rate")


@pytest.fixture()
def copy(attached_copy):
    return attached_copy


def counts(spark, batch: int | None = None) -> dict[int, int]:
    as_of = "" if batch is None else f" VERSION AS OF {batch}"
    rows = spark.sql(f"SELECT * FROM rw.agg_0.default{as_of}").collect()
    return {r[0]: r["count"] for r in rows}  # the key column: k, or the rate source's value


def offset(spark) -> int:
    return spark.table("rw.sources.offsets").first().offset


def test_a_rewound_file_source_reads_its_later_log_entries_again(spark, built, copy) -> None:
    ckpt = copy(built.files)
    before = counts(spark)
    assert before == {1: 2, 2: 2, 3: 1, 4: 1}
    spark.sql("UPDATE rw.sources.offsets SET offset = 0 WHERE source_id = 0")
    # two batches: Spark asks a file source for its last batch again on restart, from the
    # positions of the batch before it, so both carry the new position
    assert last_batch(ckpt) == 3
    assert counts(spark) == before, "the edit's batches carry the state over"
    old, new, again = ((ckpt / "offsets" / str(b)).read_text().split("\n") for b in (1, 2, 3))
    assert new[:2] == old[:2] and new[2] == '{"logOffset":0}' and old[2] == '{"logOffset":1}'
    assert again == new

    attach(spark, str(ckpt), "rw")
    run_file_count(spark, built.input, ckpt)  # the real query, restarted
    assert last_batch(ckpt) == 4
    assert counts(spark) == {1: 3, 2: 2, 3: 1, 4: 2}, "c.json ([4, 1]) was read once more"
    files = spark.sql("SELECT count(*) AS n FROM rw.sources.files").first().n
    assert files == 3, "no file was listed again"


def test_a_rewound_rate_source_generates_the_same_rows_again(spark, built, copy) -> None:
    ckpt = copy(built.rate)
    at = offset(spark)
    assert at >= 2
    before = counts(spark)
    assert set(before.values()) == {1} and max(before) == at * RATE - 1
    spark.sql(f"UPDATE rw.sources.offsets SET offset = {at - 2}")
    count_until(spark, rate_stream(spark, RATE), F.col("value"), ckpt, 1)
    after = counts(spark)
    again = {v for v, n in after.items() if n == 2}
    assert again == set(range((at - 2) * RATE, at * RATE)), "seconds at-2 and at-1, again"
    assert max(after.values()) == 2
    assert all(after[v] == 1 for v in range((at - 2) * RATE))


def test_an_advanced_rate_source_skips_rows(spark, built, copy) -> None:
    ckpt = copy(built.rate)
    at = offset(spark)
    started = int((ckpt / "sources" / "0" / "0").read_text().split("\n")[1])
    while (time.time() * 1000 - started) / 1000 < at + 3:
        time.sleep(0.2)  # the new position must not lie ahead of the source's clock
    spark.sql(f"UPDATE rw.sources.offsets SET offset = {at + 2}")
    count_until(spark, rate_stream(spark, RATE), F.col("value"), ckpt, 1)
    after = counts(spark)
    skipped = set(range(at * RATE, (at + 2) * RATE))
    assert not skipped & set(after), "the rows of the two skipped seconds were never read"
    assert set(range(at * RATE)) <= set(after) and set(after.values()) == {1}
    assert max(after) >= (at + 2) * RATE, "it went on after the skipped seconds"


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("UPDATE rw.sources.offsets SET offset = 7", r"from -1 \(before its first entry\) to 1"),
        ("UPDATE rw.sources.offsets SET offset = NULL", "cannot be NULL"),
        ("UPDATE rw.sources.offsets SET topic = 't'", "only the offset column can change"),
        ("DELETE FROM rw.sources.offsets", "cannot be removed"),
    ],
)
def test_edits_a_source_cannot_honour_change_nothing(spark, built, copy, statement, message):
    ckpt = copy(built.files)
    before = snapshot(ckpt)
    with pytest.raises(Exception, match=f"SAVEPOINT_BAD_SOURCE_POSITION.*{message}"):
        spark.sql(statement)
    assert snapshot(ckpt) == before


def test_merge_from_an_earlier_batch_sets_the_positions_back(spark, built, copy) -> None:
    ckpt = copy(built.rate)
    at, before = offset(spark), last_batch(ckpt)
    spark.sql(f"UPDATE rw.sources.offsets SET offset = {at - 1}")
    assert offset(spark) == at - 1
    spark.sql(f"""
        MERGE INTO rw.sources.offsets t
        USING (SELECT * FROM rw.sources.offsets VERSION AS OF {before}) s
        ON t.source_id = s.source_id AND t.topic <=> s.topic AND t.partition <=> s.partition
        WHEN MATCHED THEN UPDATE SET offset = s.offset
    """)
    assert (offset(spark), last_batch(ckpt)) == (at, before + 2)


def test_a_rate_source_cannot_be_advanced_past_its_clock(spark, built, copy) -> None:
    ckpt = copy(built.rate)
    before = snapshot(ckpt)
    with pytest.raises(Exception, match=r"SAVEPOINT_BAD_SOURCE_POSITION.*ahead of its clock"):
        spark.sql("UPDATE rw.sources.offsets SET offset = offset + 100000")
    assert snapshot(ckpt) == before


def files(spark) -> list[tuple[int, str]]:
    rows = spark.sql("SELECT log_offset, path FROM rw.sources.files").collect()
    return sorted((r.log_offset, Path(r.path).name) for r in rows)


def test_deleted_seen_files_are_read_again_once(spark, built, copy) -> None:
    ckpt = copy(built.files)
    spark.sql("DELETE FROM rw.sources.files WHERE path LIKE '%/b.json'")
    report = last_edit(spark)
    assert (report.batch_id, report.removed) == (2, 1) and "read again" in report.warning
    assert (ckpt / "sources" / "0" / "2").exists(), "a new entry of the source's log"
    assert offset(spark) == 1, "the position stays"
    assert counts(spark) == {1: 2, 2: 2, 3: 1, 4: 1}, "the state is carried over"

    attach(spark, str(ckpt), "rw")
    run_file_count(spark, built.input, ckpt)  # the real query, restarted
    assert counts(spark) == {1: 2, 2: 3, 3: 2, 4: 1}, "b.json ([2, 3]) was read once more"
    assert files(spark) == [(0, "a.json"), (0, "b.json"), (1, "c.json"), (2, "b.json")]
    run_file_count(spark, built.input, ckpt)
    assert counts(spark) == {1: 2, 2: 3, 3: 2, 4: 1}, "and not a third time"


def test_a_file_read_again_can_fall_on_a_compacted_log_entry(spark, built, copy) -> None:
    ckpt = copy(built.files)
    spark.conf.set("spark.sql.streaming.fileSource.log.compactInterval", "3")
    try:
        spark.sql("DELETE FROM rw.sources.files WHERE path LIKE '%/a.json'")
        assert (ckpt / "sources" / "0" / "2.compact").exists()
        attach(spark, str(ckpt), "rw")
        run_file_count(spark, built.input, ckpt)
    finally:
        spark.conf.unset("spark.sql.streaming.fileSource.log.compactInterval")
    assert counts(spark) == {1: 3, 2: 3, 3: 1, 4: 1}, "a.json ([1, 2]) was read once more"


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("UPDATE rw.sources.files SET path = 'x.json'", "can only be deleted"),
        ("INSERT INTO rw.sources.files SELECT * FROM rw.sources.files", "SAVEPOINT_UNSUPPORTED"),
        ("DELETE FROM rw.sources.files WHERE path LIKE '%/gone.json'", "is gone"),
    ],
)
def test_seen_files_edits_refused_change_nothing(spark, built, copy, statement, message):
    gone = built.input / "gone.json"
    write_json(built.input, "gone.json", [9])
    try:
        ckpt = copy(built.files)
        if "gone" in statement:
            run_file_count(spark, built.input, ckpt)  # lists gone.json
            gone.unlink()
        before = snapshot(ckpt)
        with pytest.raises(Exception, match=message):
            spark.sql(statement)
        assert snapshot(ckpt) == before
    finally:
        gone.unlink(missing_ok=True)
