"""Several statements, one batch: ``with edit(spark) as tx`` and ``sql --atomic`` stage every
statement's changes (its own checks and tasks run at once, against the last batch N) and commit
them together as batch N+1, or, when a statement or the commit fails, commit nothing and leave
the folder byte-identical. The query used has two stateful operators: ``dedup_1`` (by event_id)
feeding ``agg_0`` (``cnt`` and ``total`` per user)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from spark_savepoint import attach, edit, last_edit, savepoint_errors
from spark_savepoint.catalog.errors import (
    BadArguments,
    ConcurrentWrite,
    DuplicateKey,
    SqlParseError,
    TransactionConflict,
    TransactionEnded,
)
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import StreamingQuery, build, restart_rows

CATALOG = "tx"
AGG = f"{CATALOG}.agg_0.default"
DEDUP = f"{CATALOG}.dedup_1.default"
FORGET_ALICE = (
    f"DELETE FROM {AGG} WHERE user = 'alice'",
    f"DELETE FROM {DEDUP} WHERE event_id = 3",
)
"""Forget alice's totals and that event 3 was seen: after a restart, the retransmitted event 3
counts again, and alice's totals start from it."""
RESTART_AFTER_FORGET = [
    {"user": "alice", "cnt": 2, "total": 8},
    {"user": "dave", "cnt": 1, "total": 8},
]


@pytest.fixture(scope="module")
def two_operators(spark, tmp_path_factory) -> Callable[[str], StreamingQuery]:
    """``two_operators(provider)``: the dedup-then-aggregate query, built once per provider
    for this module when first asked for."""
    cache = os.environ.get("SPARK_SAVEPOINT_TEST_CACHE")
    root = Path(cache) if cache else tmp_path_factory.mktemp("two-operators")
    queries: dict[str, StreamingQuery] = {}

    def get(provider: str) -> StreamingQuery:
        if provider not in queries:
            folder = root / f"dedup_agg-{provider}"
            if cache and (folder / "checkpoint" / "commits" / "1").exists():
                queries[provider] = StreamingQuery("dedup_agg", provider, folder)
            else:
                shutil.rmtree(folder, ignore_errors=True)
                queries[provider] = build(spark, "dedup_agg", provider, folder)
        return queries[provider]

    return get


@pytest.fixture()
def query_copy(spark, two_operators, tmp_path) -> Callable[[str], StreamingQuery]:
    """``query_copy(provider)``: a private copy of the two-operator query, attached as ``tx``."""

    def make(provider: str) -> StreamingQuery:
        query = two_operators(provider).copy(tmp_path / provider)
        attach(spark, str(query.checkpoint), CATALOG)
        return query

    return make


def without_staging(files: dict[str, str]) -> dict[str, str]:
    """A folder snapshot without the transactions' staging folders."""
    return {path: digest for path, digest in files.items() if "_savepoint-tx-" not in path}


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


@pytest.mark.slow
@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_two_operators_edited_as_one_batch(spark, query_copy, provider: str) -> None:
    query = query_copy(provider)
    batch = last_batch(query.checkpoint)
    with edit(spark) as tx:
        for statement in FORGET_ALICE:
            tx.sql(statement)
        planned = tx.plan()
        assert [(p.table, p.removed, p.samples) for p in planned] == [
            ("agg_0.default", 1, ["[alice]: [2,17] -> (removed)"]),
            ("dedup_1.default", 1, ["[3]: [null] -> (removed)"]),
        ]
        assert last_batch(query.checkpoint) == batch  # staged, not committed
    assert (tx.report.batch_id, tx.report.removed) == (batch + 1, 2)
    assert last_batch(query.checkpoint) == batch + 1
    assert not list(query.checkpoint.glob("_savepoint-tx-*"))
    assert rows(spark, AGG) == [("bob", 1, 5), ("carol", 1, 3)]
    assert query.restart(spark) == RESTART_AFTER_FORGET


def test_a_failing_statement_commits_nothing(spark, query_copy) -> None:
    query = query_copy("rocksdb")
    before = snapshot(query.checkpoint)
    with pytest.raises(DuplicateKey), edit(spark) as tx:
        tx.sql(FORGET_ALICE[0])
        tx.sql(f"INSERT INTO {DEDUP} VALUES (9), (9)")
    assert not tx.open
    assert snapshot(query.checkpoint) == before

    with pytest.raises(RuntimeError, match="changed my mind"), edit(spark) as tx:
        tx.sql(FORGET_ALICE[0])
        raise RuntimeError("changed my mind")
    assert snapshot(query.checkpoint) == before
    with pytest.raises(TransactionEnded):
        tx.sql(FORGET_ALICE[1])


def event(event_id: int, user: str, amount: int, clock: str) -> dict:
    """An input row of the two-operator query."""
    return {"event_id": event_id, "user": user, "item": "fig", "amount": amount,
            "ts": f"2024-01-01 {clock}:00"}  # fmt: skip


@pytest.mark.slow
def test_later_statements_see_earlier_ones(spark, query_copy, checkpoints, tmp_path) -> None:
    """Statements on one table fold into one batch as a script means them: each reads the
    state with the earlier ones' changes over it, and the last change of a key wins. Only
    another checkpoint is refused (and the refused statement changes nothing)."""
    query = query_copy("rocksdb")
    other = checkpoints[("agg", "hdfs")].copy(tmp_path / "other")
    attach(spark, str(other.checkpoint), "tx_other")
    other_before = snapshot(other.checkpoint)
    batch = last_batch(query.checkpoint)
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {AGG} VALUES ('zed', 1, 1), ('ann', 1, 1)")
        tx.sql(f"UPDATE {AGG} SET cnt = 5, total = 50 WHERE user = 'zed'")
        tx.sql(f"DELETE FROM {AGG} WHERE user IN ('bob', 'ann')")
        tx.sql(f"INSERT INTO {DEDUP} SELECT cnt + 90 FROM {AGG} WHERE user = 'zed'")
        with pytest.raises(TransactionConflict, match="edits checkpoint"):
            tx.sql("INSERT INTO tx_other.agg_0.default VALUES ('zed', 1, 1)")
        with pytest.raises(BadArguments, match="one INSERT, DELETE, UPDATE or MERGE"):
            tx.sql(f"SELECT * FROM {AGG}")
        staged = sorted(tuple(r) for r in tx.collect(f"SELECT * FROM {AGG}"))
        assert staged == [("alice", 2, 17), ("carol", 1, 3), ("zed", 5, 50)]
        assert tx.collect(f"SELECT cnt FROM {AGG} WHERE user = 'ann'") == []  # no lookup
        committed = tx.collect(f"SELECT user FROM {AGG} VERSION AS OF {batch}")
        assert sorted(r[0] for r in committed) == ["alice", "bob", "carol"]  # as committed
        assert [(p.table, p.added, p.changed, p.removed) for p in tx.plan()] == [
            ("agg_0.default", 2, 0, 0),
            ("agg_0.default", 0, 1, 0),
            ("agg_0.default", 0, 0, 2),
            ("dedup_1.default", 1, 0, 0),
        ]
        assert last_batch(query.checkpoint) == batch
    assert (tx.report.batch_id, last_batch(query.checkpoint)) == (batch + 1, batch + 1)
    assert rows(spark, AGG) == [("alice", 2, 17), ("carol", 1, 3), ("zed", 5, 50)]
    assert (95,) in rows(spark, DEDUP)
    assert snapshot(other.checkpoint) == other_before

    query.add_input([event(20, "zed", 5, "10:09"), event(21, "bob", 2, "10:09"),
                     event(95, "carol", 9, "10:09")])  # fmt: skip
    emitted = query.run(spark)
    assert emitted == [  # zed from the edit; bob anew; event 95 was seen (the edit)
        {"user": "bob", "cnt": 1, "total": 2},
        {"user": "zed", "cnt": 6, "total": 55},
    ]


@pytest.mark.slow
def test_cli_atomic_script_edits_a_table_twice(spark, two_operators, tmp_path, capsys) -> None:
    from spark_savepoint.sql_ext.cli import main

    query = two_operators("hdfs").copy(tmp_path / "twice")
    batch = last_batch(query.checkpoint)
    script = (
        "USE savepoint;\n"
        "DELETE FROM agg_0.default WHERE user = 'bob';\n"
        "INSERT INTO agg_0.default VALUES ('bob', 7, 70);\n"
        "UPDATE agg_0.default SET total = total + 1 WHERE user = 'bob';\n"
    )
    assert main(["sql", str(query.checkpoint), "-e", script, "--atomic"]) == 0
    out = capsys.readouterr().out
    assert "    [bob]: [7,70] -> [7,71]" in out.splitlines()  # the UPDATE sees the INSERT
    assert f"agg_0.default: 1 entry written, 0 removed: committed as batch {batch + 1}" in out
    attach(spark, str(query.checkpoint), CATALOG)
    assert ("bob", 7, 71) in rows(spark, AGG)
    assert (last_edit(spark).written, last_edit(spark).removed) == (1, 0)  # bob's last change
    emitted = query.restart(spark)
    assert {"user": "bob", "cnt": 7, "total": 71} not in emitted  # bob has no new input
    assert [r["user"] for r in emitted] == ["alice", "dave"]


@pytest.mark.slow
def test_a_commit_after_another_edit_is_a_concurrent_write(spark, query_copy) -> None:
    query = query_copy("hdfs")
    with pytest.raises(ConcurrentWrite), savepoint_errors(), edit(spark) as tx:
        tx.sql(FORGET_ALICE[0])
        spark.sql(f"INSERT INTO {DEDUP} VALUES (77)")  # commits its own batch meanwhile
        after_other = without_staging(snapshot(query.checkpoint))
    assert snapshot(query.checkpoint) == after_other
    assert ("alice", 2, 17) in rows(spark, AGG)


@pytest.mark.slow
def test_dry_run_transaction_plans_and_writes_nothing(spark, query_copy) -> None:
    query = query_copy("rocksdb")
    before = snapshot(query.checkpoint)
    with edit(spark, dry_run=True) as tx:
        tx.sql(f"MERGE INTO {AGG} t USING (SELECT 'alice' AS user) s ON t.user = s.user"
               " WHEN MATCHED THEN UPDATE SET cnt = 0")  # fmt: skip
        tx.sql(FORGET_ALICE[1])
        assert [(p.changed, p.removed) for p in tx.plan()] == [(1, 0), (0, 1)]
    assert tx.report is None and not tx.open
    assert snapshot(query.checkpoint) == before


@pytest.mark.slow
def test_transform_with_state_variables_of_one_store_in_one_batch(spark, private_copy) -> None:
    """Two tables of one transformWithState store (a list variable and the timers): their
    changes are replayed onto the store's one new version."""
    query = private_copy("tws", "rocksdb", CATALOG)
    batch = last_batch(query.checkpoint)
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {CATALOG}.tws_0.history VALUES ('zed', 9)")
        tx.sql(f"INSERT INTO {CATALOG}.tws_0.timers VALUES ('zed', 1704200000000)")
    assert tx.report.batch_id == batch + 1 and last_batch(query.checkpoint) == batch + 1
    history = spark.table(f"{CATALOG}.tws_0.history").where("user = 'zed'").collect()
    timers = spark.table(f"{CATALOG}.tws_0.timers").where("user = 'zed'").collect()
    assert [r[1] for r in history] == [9]
    assert len(timers) == 1
    emitted = query.restart(spark)  # the query loads the new version and runs on
    assert {row["user"] for row in emitted} == {"alice", "dave"}


@pytest.mark.slow
def test_statements_fold_on_transform_with_state_lists_maps_and_timers(spark, private_copy) -> None:
    """A list appended twice holds both rows; a map entry inserted then updated, a timer
    registered then deleted: each table as its last statement left it, and the restarted
    query appends to the edited list."""
    query = private_copy("tws", "rocksdb", CATALOG)
    tws = f"{CATALOG}.tws_0"
    with edit(spark) as tx:
        for statement in (
            f"INSERT INTO {tws}.history VALUES ('zed', 9)",
            f"INSERT INTO {tws}.history VALUES ('zed', 10)",
            f"DELETE FROM {tws}.history WHERE user = 'alice' AND amount = 10",
            f"INSERT INTO {tws}.items VALUES ('zed', 'fig', 1)",
            f"UPDATE {tws}.items SET count = count + 1 WHERE user = 'zed'",
            f"INSERT INTO {tws}.timers VALUES ('zed', 1704200000000)",
            f"DELETE FROM {tws}.timers WHERE user = 'zed'",
        ):
            tx.sql(statement)
        staged = tx.collect(f"SELECT amount FROM {tws}.history WHERE user = 'zed'")
        assert [r[0] for r in staged] == [9, 10]

    def history(user: str) -> list[int]:
        return [r[0] for r in spark.sql(
            f"SELECT amount FROM {tws}.history WHERE user = '{user}'").collect()]  # fmt: skip

    assert (history("zed"), history("alice")) == ([9, 10], [7])
    items = spark.sql(f"SELECT item, count FROM {tws}.items WHERE user = 'zed'").collect()
    assert [tuple(r) for r in items] == [("fig", 2)]
    assert spark.sql(f"SELECT * FROM {tws}.timers WHERE user = 'zed'").count() == 0
    emitted = query.restart(spark)
    assert {row["user"] for row in emitted} == {"alice", "dave"}
    assert history("alice") == [7, 1, 7]  # the restarted query appended to the edited list


@pytest.mark.slow
def test_statements_fold_on_a_join_side(spark, private_copy) -> None:
    """Rows appended by two statements get indexes 0 and 1 of their key, a row deleted by a
    third goes: the side's two stores stay consistent, and the restarted join sees it."""
    query = private_copy("join", "hdfs", CATALOG)
    left = f"{CATALOG}.join_0.left"
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {left} VALUES ('e', 'e', TIMESTAMP '2024-01-01 10:06:00', 5)")
        tx.sql(f"INSERT INTO {left} VALUES ('e', 'e', TIMESTAMP '2024-01-01 10:07:00', 6)")
        tx.sql(f"UPDATE {left} SET left_value = 60 WHERE left_value = 6")
        tx.sql(f"DELETE FROM {left} WHERE field0 = 'c'")
    counts = spark.table(f"{CATALOG}.join_0.left_keyToNumValues").collect()
    values = spark.table(f"{CATALOG}.join_0.left_keyWithIndexToValue").collect()
    assert sorted((r[0], r[1]) for r in counts) == [("a", 1), ("b", 1), ("e", 2)]
    assert sorted((r[0], r[1], r[4]) for r in values) == [
        ("a", 0, 1), ("b", 0, 2), ("e", 0, 5), ("e", 1, 60)
    ]  # fmt: skip
    query.add_input(
        [
            *restart_rows("join"),
            {"side": "right", "key": "e", "ts": "2024-01-01 10:08:00", "value": 50},
        ]
    )
    emitted = sorted((r["key"], r["left_value"]) for r in query.run(spark))
    assert emitted == [("d", 4), ("e", 5), ("e", 60)]  # no c: left c is gone


@pytest.mark.slow
def test_cli_atomic_script(spark, two_operators, tmp_path, capsys) -> None:
    from spark_savepoint.sql_ext.cli import main

    query = two_operators("rocksdb").copy(tmp_path / "cli")
    before = snapshot(query.checkpoint)
    batch = last_batch(query.checkpoint)
    script = tmp_path / "fix.sql"
    script.write_text(
        "USE savepoint;\n"
        "DELETE FROM agg_0.default WHERE user = 'alice';\n"
        "DELETE FROM dedup_1.default WHERE event_id = 3;\n"
    )
    args = ["sql", str(query.checkpoint), "-f", str(script), "--atomic"]
    assert main([*args, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1. DELETE FROM agg_0.default WHERE user = 'alice'" in out
    assert "    [3]: [null] -> (removed)" in out and "dry run: nothing was written" in out
    assert snapshot(query.checkpoint) == before

    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"committed as batch {batch + 1}" in out
    assert "  agg_0.default: 0 added, 0 changed, 1 removed" in out.splitlines()
    assert "dry run" not in out and "nothing written" not in out, out
    assert last_batch(query.checkpoint) == batch + 1
    assert last_edit(spark).removed == 2

    after = snapshot(query.checkpoint)
    script.write_text("DELETE FROM agg_0.default WHERE user = 'bob';\nSELECT 1;\n")
    assert main(["sql", str(query.checkpoint), "-e", script.read_text(), "--atomic"]) == 1
    assert "--atomic takes INSERT, DELETE, UPDATE, MERGE and USE" in capsys.readouterr().err
    script.write_text("DELETE FROM agg_0.default WHERE user = 'bob';\nINSERT INTO x VALUES (1")
    assert main([*args]) == 1
    assert "[SAVEPOINT_SQL_PARSE_ERROR] line 2" in capsys.readouterr().err
    assert snapshot(query.checkpoint) == after
    assert query.restart(spark) == RESTART_AFTER_FORGET


def test_parse_error_names_line_and_column(spark) -> None:
    from spark_savepoint.sql_ext.transaction import run_script

    with pytest.raises(SqlParseError, match="line 1, column"):
        run_script(spark, "DELETE FROM tx.agg_0.default WHERE (")
