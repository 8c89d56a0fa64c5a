"""Undo an edit: its inverse committed as a new batch. The decisive check: the restarted query
emits what it would have without the edit, and undoing the undo brings the edit back. Edits
are listed by ``<catalog>.query.edits``."""

from __future__ import annotations

import pytest

from spark_savepoint import attach, edit, undo
from spark_savepoint.catalog.errors import NotAnEdit, UndoConflict
from spark_savepoint.sql_ext.cli import main
from tests.support.checkpoint_files import last_batch, snapshot

CATALOG = "un"
AGG = f"{CATALOG}.agg_0.default"


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


@pytest.mark.slow
def test_undo_restarts_as_if_the_edit_never_happened(spark, private_copy) -> None:
    query = private_copy("agg", "hdfs", CATALOG)
    before = rows(spark, AGG)
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {AGG} VALUES ('zed', 1, 1)")
        tx.sql(f"UPDATE {AGG} SET cnt = 9, total = 90 WHERE user = 'alice'")
        tx.sql(f"DELETE FROM {AGG} WHERE user = 'bob'")
    edited, batch = rows(spark, AGG), last_batch(query.checkpoint)
    (listed,) = spark.sql(f"SELECT * FROM {CATALOG}.query.edits").collect()
    assert listed.batch_id == batch and "transaction" in listed.edit and listed.user
    assert listed.statements == [  # what the edit was, as written, and the entries it changed
        f"INSERT INTO {AGG} VALUES ('zed', 1, 1)",
        f"UPDATE {AGG} SET cnt = 9, total = 90 WHERE user = 'alice'",
        f"DELETE FROM {AGG} WHERE user = 'bob'",
    ]
    assert (listed.written, listed.removed) == (2, 1)

    done = undo(spark, str(query.checkpoint))
    assert done.batch_id == batch and done.report.batch_id == batch + 1
    assert rows(spark, AGG) == before
    again = undo(spark, str(query.checkpoint))  # an undo is an edit: undone, the edit is back
    assert again.batch_id == batch + 1 and rows(spark, AGG) == edited
    undo(spark, str(query.checkpoint))
    assert rows(spark, AGG) == before
    assert query.restart(spark) == [  # as if the edit never happened: alice from (2, 17)
        {"user": "alice", "cnt": 4, "total": 25},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


@pytest.mark.slow
def test_undo_refuses_what_it_cannot_take_back(spark, private_copy) -> None:
    query = private_copy("agg", "rocksdb", CATALOG)
    path = str(query.checkpoint)
    with pytest.raises(NotAnEdit, match="No edit was committed"):
        undo(spark, path)
    spark.sql(f"UPDATE {AGG} SET cnt = 5 WHERE user = 'alice'")
    first = last_batch(query.checkpoint)
    spark.sql(f"UPDATE {AGG} SET total = 50 WHERE user = 'alice'")
    spark.sql(f"INSERT INTO {AGG} VALUES ('zed', 1, 1)")
    files = snapshot(query.checkpoint)
    with pytest.raises(NotAnEdit, match=r"Batch 1 .*edit batches: 2, 3, 4\).*repair"):
        undo(spark, path, batch=1)
    with pytest.raises(UndoConflict, match=r"later batches changed the same keys \(user=alice\)"):
        undo(spark, path, batch=first)
    assert snapshot(query.checkpoint) == files  # refused: nothing written
    forced = undo(spark, path, batch=first, force=True)
    assert forced.report.batch_id == first + 3
    assert ("alice", 2, 17) in rows(spark, AGG) and ("zed", 1, 1) in rows(spark, AGG)


@pytest.mark.slow
def test_undo_of_lists_and_timers(spark, private_copy) -> None:
    query = private_copy("tws", "rocksdb", CATALOG)
    history, timers = f"{CATALOG}.tws_0.history", f"{CATALOG}.tws_0.timers"
    before = rows(spark, history), rows(spark, timers)
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {history} VALUES ('zed', 9), ('alice', 10)")
        tx.sql(f"DELETE FROM {history} WHERE user = 'bob'")
        tx.sql(f"INSERT INTO {timers} VALUES ('zed', 1704200000000)")
    undo(spark, str(query.checkpoint))
    assert (rows(spark, history), rows(spark, timers)) == before
    emitted = query.restart(spark)
    assert {row["user"] for row in emitted} == {"alice", "dave"}


@pytest.mark.slow
def test_cli_undo(spark, private_copy, capsys) -> None:
    query = private_copy("agg", "rocksdb", "unc")
    spark.sql("DELETE FROM unc.agg_0.default WHERE user = 'bob'")
    batch = last_batch(query.checkpoint)
    files = snapshot(query.checkpoint)
    assert main(["undo", str(query.checkpoint), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"undo of edit batch {batch}" in out and "nothing was written" in out
    assert snapshot(query.checkpoint) == files
    assert main(["undo", str(query.checkpoint)]) == 0
    assert f"committed as batch {batch + 1}" in capsys.readouterr().out
    attach(spark, str(query.checkpoint), "unc")
    assert ("bob", 2, 10) in rows(spark, "unc.agg_0.default")


def test_undo_of_a_log_edit_says_it_writes_nothing(spark, private_copy, capsys) -> None:
    query = private_copy("window_agg", "hdfs", CATALOG)
    last = last_batch(query.checkpoint)
    spark.sql(f"UPDATE {CATALOG}.query.batches SET watermark_ms = watermark_ms + 1000 "
              f"WHERE batch_id = {last}")  # fmt: skip
    files = snapshot(query.checkpoint)
    assert main(["undo", str(query.checkpoint)]) == 0
    assert f"edit batch {last + 1} changed no state table" in capsys.readouterr().out
    assert snapshot(query.checkpoint) == files


@pytest.mark.slow
def test_undo_in_sql(spark, private_copy) -> None:
    """spark-sql, beeline and Connect clients undo with the procedure: a row per statement of
    the inverse (with dry_run, what it would change), then the outcome."""
    query = private_copy("agg", "hdfs", CATALOG)
    spark.sql(f"DELETE FROM {AGG} WHERE user = 'bob'")
    batch = last_batch(query.checkpoint)
    files = snapshot(query.checkpoint)
    planned = spark.sql(f"CALL {CATALOG}.system.undo(dry_run => true)").collect()
    assert [(r.batch_id, r.statement is None) for r in planned] == [(batch, False), (batch, True)]
    assert planned[0].statement.startswith("MERGE INTO `spark_savepoint_undo_")
    assert "1 added, 0 changed, 0 removed" in planned[0].summary
    assert planned[1].summary == "dry run: nothing was written"
    assert snapshot(query.checkpoint) == files
    (*_, done) = spark.sql(f"CALL {CATALOG}.system.undo(batch_id => {batch})").collect()
    assert f"committed as batch {batch + 1}" in done.summary
    edits = spark.sql(f"SELECT statements, written, removed FROM {CATALOG}.query.edits").collect()
    assert edits[0].statements == [f"DELETE FROM {AGG} WHERE user = 'bob'"]
    assert edits[1].statements == [f"CALL {CATALOG}.system.undo(batch_id => {batch})"]
    assert [(e.written, e.removed) for e in edits] == [(0, 1), (1, 0)]
    assert ("bob", 2, 10) in rows(spark, AGG)
