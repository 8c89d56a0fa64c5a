"""What changed between two points of a query's state (``savepoint_diff``, ``diff``,
``spark-savepoint diff``): an edit's changes, read back as inserts, updates and deletes with the
values before and after; nothing between a batch and itself; the same against a savepoint taken
before the edit; rows of lists, which repeat their key, as whole rows."""

from __future__ import annotations

import pytest

from spark_savepoint import attach, changes, diff, diff_tables, edit, take_savepoint
from spark_savepoint.catalog import settings
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext.cli import main
from tests.support.checkpoint_files import last_batch

CATALOG = "df"
AGG = f"{CATALOG}.agg_0.default"


def changed_rows(frame) -> list[tuple]:
    """Rows as tuples (structs as tuples too), sorted."""
    return sorted(
        tuple(tuple(v) if hasattr(v, "asDict") else v for v in r) for r in frame.collect()
    )


@pytest.fixture()
def edited(spark, private_copy, tmp_path):
    """A copy of the aggregation query, a savepoint of it, and one edit batch: zed inserted,
    alice updated, bob deleted. Yields (query, batch before the edit, savepoint folder)."""
    query = private_copy("agg", "rocksdb", CATALOG)
    before = last_batch(query.checkpoint)
    savepoint = tmp_path / "savepoint"
    take_savepoint(spark, str(query.checkpoint), str(savepoint))
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {AGG} VALUES ('zed', 1, 1)")
        tx.sql(f"UPDATE {AGG} SET cnt = 3, total = 20 WHERE user = 'alice'")
        tx.sql(f"DELETE FROM {AGG} WHERE user = 'bob'")
    return query, before, savepoint


EDIT = [
    ("delete", "bob", (2, 10), None),
    ("insert", "zed", None, (1, 1)),
    ("update", "alice", (2, 17), (3, 20)),
]


@pytest.mark.slow
def test_an_edit_reads_back_as_its_changes(spark, edited) -> None:
    query, before, savepoint = edited
    assert changed_rows(diff(spark, AGG, before)) == sorted(EDIT)
    assert changed_rows(diff(spark, AGG, before, before + 1)) == sorted(EDIT)
    assert changed_rows(diff(spark, AGG, before + 1, before)) == sorted(
        [
            ("insert", "bob", None, (2, 10)),
            ("delete", "zed", (1, 1), None),
            ("update", "alice", (3, 20), (2, 17)),
        ]  # fmt: skip
    )
    assert diff(spark, AGG, before, before).count() == 0  # a batch and itself
    assert changed_rows(diff(spark, AGG, str(savepoint))) == sorted(EDIT)  # a savepoint of batch N
    sql = spark.sql(f"SELECT * FROM savepoint_diff('{AGG}', {before}) WHERE user = 'alice'")
    assert changed_rows(sql) == [EDIT[2]]
    assert diff(spark, AGG, before).columns == ["change_type", "user", "before", "after"]


@pytest.mark.slow
def test_key_predicates_are_looked_up_at_both_points(spark, edited) -> None:
    """A filter on key columns reaches both reads of a diff, which look the keys up instead of
    scanning every partition, and the change feed, which keeps only those keys' changes."""
    query, before, _ = edited
    keyed = f"SELECT * FROM savepoint_diff('{AGG}', {before}) WHERE user IN ('bob', 'zed')"
    plan = spark.sql(f"EXPLAIN {keyed}").collect()[0][0]
    assert plan.count("key lookup: 2 keys") == 2, plan
    assert changed_rows(spark.sql(keyed)) == [EDIT[0], EDIT[1]]
    feed = f"SELECT * FROM savepoint_changes('{AGG}', {before + 1}) WHERE user = 'alice'"
    plan = spark.sql(f"EXPLAIN {feed}").collect()[0][0]
    assert "(change files; changed keys looked up as of batch" in plan, plan
    assert "key filter: 1 keys)" in plan, plan
    assert [(r.change_type, r.cnt) for r in spark.sql(feed).collect()] == [("update", 3)]


@pytest.mark.slow
def test_rows_that_repeat_their_key_come_whole(spark, private_copy) -> None:
    private_copy("tws", "rocksdb", CATALOG)
    history, timers = f"{CATALOG}.tws_0.history", f"{CATALOG}.tws_0.timers"
    before = spark.sql(f"SELECT max(batch_id) FROM {CATALOG}.query.batches").first()[0]
    with edit(spark) as tx:
        tx.sql(f"INSERT INTO {history} VALUES ('zed', 9), ('alice', 10)")
        tx.sql(f"DELETE FROM {history} WHERE user = 'bob'")
        tx.sql(f"INSERT INTO {timers} VALUES ('zed', 1704200000000)")
    assert changed_rows(diff(spark, history, before)) == [
        ("delete", "bob", 5), ("delete", "bob", 5),  # bob's list held 5 twice
        ("insert", "alice", 10), ("insert", "zed", 9),
    ]  # fmt: skip
    assert diff(spark, history, before).columns == ["change_type", "user", "amount"]
    assert changed_rows(diff(spark, timers, before)) == [("insert", "zed", 1704200000000)]
    feed = changes(spark, history, before + 1)
    assert feed.columns == ["batch_id", "change_type", "user", "amount", "partition_id"]
    assert sorted(tuple(r)[:4] for r in feed.collect()) == [
        (before + 1, "delete", "bob", 5), (before + 1, "delete", "bob", 5),
        (before + 1, "insert", "alice", 10), (before + 1, "insert", "zed", 9),
    ]  # fmt: skip


@pytest.mark.slow
def test_the_cli_summarizes_each_table_then_shows_changes(spark, edited, capsys) -> None:
    query, before, _ = edited
    tables = {t.table: t for t in diff_tables(spark, str(query.checkpoint), before)}
    assert tables["agg_0.default"].counts == {"insert": 1, "update": 1, "delete": 1}
    assert main(["diff", str(query.checkpoint), str(before)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        f"diff of '{query.checkpoint}' from batch {before} to the last batch:",
        "  agg_0.default: 1 inserted, 1 updated, 1 deleted",
    ]
    assert "  update  user=alice  {cnt: 2, total: 17} -> {cnt: 3, total: 20}" in out


def test_a_name_that_is_no_state_table_is_refused(spark, edited) -> None:
    with pytest.raises(BadArguments, match="names no state table"):
        diff(spark, "nowhere.agg_0.default", 1)


@pytest.mark.slow
def test_the_change_feed_is_what_each_batch_changed(spark, private_copy) -> None:
    query = private_copy("agg", "rocksdb", CATALOG)
    first = last_batch(query.checkpoint) + 1
    spark.sql(f"INSERT INTO {AGG} VALUES ('zed', 1, 1)")
    spark.sql(f"UPDATE {AGG} SET cnt = 3, total = 20 WHERE user = 'alice'")
    spark.sql(f"DELETE FROM {AGG} WHERE user = 'bob'")
    feed = changes(spark, AGG, first)
    assert feed.columns == ["batch_id", "change_type", "user", "cnt", "total", "partition_id"]
    assert sorted(tuple(r)[:5] for r in feed.collect()) == [
        (first, "insert", "zed", 1, 1),
        (first + 1, "update", "alice", 3, 20),
        (first + 2, "delete", "bob", None, None),
    ]
    placed = {
        r.user: r.partition_id for r in spark.sql(f"SELECT user, partition_id FROM {AGG}").collect()
    }
    assert {r.user: r.partition_id for r in feed.where("change_type != 'delete'").collect()} == {
        u: p for u, p in placed.items() if u in ("zed", "alice")
    }
    assert sorted(tuple(r)[:5] for r in changes(spark, AGG, 0, 1).collect()) == [
        (0, "insert", "alice", 2, 17), (0, "insert", "bob", 1, 5),  # batch 0: all inserted
        (1, "insert", "carol", 1, 3), (1, "update", "bob", 2, 10),
    ]  # fmt: skip
    alice = spark.sql(f"SELECT batch_id FROM savepoint_changes('{AGG}', 0) WHERE user = 'alice'")
    assert sorted(r[0] for r in alice.collect()) == [0, first + 1]
    with pytest.raises(BadArguments, match="at most 100 batches"):
        changes(spark, AGG, 5, 1)


FROM_CHANGE_FILES = settings.CHANGES_FROM_CHANGE_FILES

FEED_KEYS = {"agg": "user", "dedup": "event_id", "pandas_state": "user"}
"""Kind -> the key column of its state table, for the edits below."""


@pytest.mark.parametrize(
    ("kind", "provider"),
    [
        ("agg", "hdfs"),
        ("agg", "rocksdb"),
        ("dedup", "rocksdb"),
        ("pandas_state", "hdfs"),
    ],
)
@pytest.mark.slow
def test_the_change_feed_from_change_files_is_the_diff_of_full_reads(
    spark, private_copy, kind, provider
) -> None:
    """Over edit batches (a key deleted, put back, deleted and put back in one transaction, a
    new key) and a batch of the restarted query, the feed read from the change files and
    classified by lookups as of the batch before is row for row the diff of full reads."""
    query = private_copy(kind, provider, CATALOG)
    table, key = f"{CATALOG}.{query.uid}.default", FEED_KEYS[kind]
    first = last_batch(query.checkpoint) + 1
    rows = spark.table(table).orderBy(key).collect()
    one, two = (f"{key} = {r[key]!r}" for r in rows[:2])
    spark.sql(f"DELETE FROM {table} WHERE {one}")
    spark.sql(f"INSERT INTO {table} SELECT * FROM {table} VERSION AS OF {first - 1} WHERE {one}")
    with edit(spark) as tx:
        tx.sql(f"DELETE FROM {table} WHERE {two}")
        tx.sql(f"INSERT INTO {table} SELECT * FROM {table} VERSION AS OF {first - 1} WHERE {two}")
        tx.sql(f"DELETE FROM {table} WHERE {one}")
    query.restart(spark)
    last = last_batch(query.checkpoint)
    attach(spark, str(query.checkpoint), CATALOG)

    def feed(from_: int, setting: str) -> list[tuple]:
        spark.conf.set(FROM_CHANGE_FILES, setting)
        try:
            frame = changes(spark, table, from_, last)
            plan = frame._jdf.queryExecution().executedPlan().toString()
            assert ("change files" in plan) == (setting == "true"), plan
            return sorted(tuple(r) for r in frame.collect())
        finally:
            spark.conf.unset(FROM_CHANGE_FILES)

    for from_ in (0, first):
        ours = feed(from_, "true")
        assert ours == feed(from_, "false") and ours
    batches = [r[:2] for r in feed(first, "true")]
    assert batches[:3] == [(first, "delete"), (first + 1, "insert"), (first + 2, "delete")]
    assert {b for b, _ in batches[3:]} == {last}  # the transaction put `two` back as it was


def test_the_change_feed_never_reads_a_batch_that_was_not_committed(spark, private_copy) -> None:
    """A writer that died after writing its state files and before its commit-log entry leaves
    change files of a batch that never happened: the feed refuses that batch, as a diff does."""
    query = private_copy("agg", "hdfs", CATALOG)
    batch = last_batch(query.checkpoint) + 1
    spark.sql(f"INSERT INTO {AGG} VALUES ('zed', 1, 1)")
    for name in (str(batch), f".{batch}.crc"):
        (query.checkpoint / "commits" / name).unlink()
    attach(spark, str(query.checkpoint), CATALOG)
    with pytest.raises(Exception, match="SAVEPOINT_UNCOMMITTED_BATCH"):
        changes(spark, AGG, batch, batch).collect()


@pytest.mark.parametrize("provider", ["rocksdb", "hdfs"])
@pytest.mark.parametrize("kind", ["agg", "dedup"])
def test_the_change_feed_equals_sparks_own_where_spark_keeps_one(
    spark, checkpoints, kind, provider
) -> None:
    """On RocksDB with changelog checkpointing and on HDFS-backed deltas, Spark's
    ``readChangeFeed`` lists each batch's puts (``update``) and removals (``delete``): the same
    rows as ours, inserts counted as Spark's updates."""
    query = checkpoints[(kind, provider)]
    attach(spark, str(query.checkpoint), "cf")
    table = f"cf.{query.uid}.default"
    spark_feed = (
        spark.read.format("statestore")
        .option("readChangeFeed", "true")
        .option("changeStartBatchId", 0)
        .option("changeEndBatchId", 1)
        .load(str(query.checkpoint))
    )
    theirs = sorted(
        (r.batch_id, r.change_type, tuple(r.key), None if r.value is None else tuple(r.value),
         r.partition_id)
        for r in spark_feed.collect()
    )  # fmt: skip
    key = len(spark_feed.schema["key"].dataType.fields)
    ours = sorted(
        (r[0], "delete" if r[1] == "delete" else "update", tuple(r[2 : 2 + key]),
         None if r[1] == "delete" else tuple(r[2 + key : -1]) or (None,), r[-1])
        for r in changes(spark, table, 0, 1).collect()
    )  # fmt: skip
    assert ours == theirs and ours


def flat(row, fields: list[str]) -> tuple:
    """The leaves of ``row``'s struct ``fields`` in order (None for a null struct)."""
    out: list = []
    for name in fields:
        value = row[name]
        out += [None] if value is None else list(value)
    return tuple(out)


PUT = {"insert": "put", "update": "put", "append": "put", "delete": "delete"}
"""Spark's feed lists every put as ``update`` (``append`` for a list element); ours tells
inserts from updates: compared as puts."""


@pytest.mark.slow
@pytest.mark.parametrize("variable", ["count", "items", "history"])
def test_the_change_feed_of_tws_state_equals_sparks(spark, checkpoints, variable) -> None:
    """transformWithState value, map and list state: Spark's ``readChangeFeed`` of a state
    variable and ours list the same puts."""
    query = checkpoints[("tws", "rocksdb")]
    attach(spark, str(query.checkpoint), "cft")
    spark_feed = (
        spark.read.format("statestore")
        .option("readChangeFeed", "true")
        .option("changeStartBatchId", 0)
        .option("changeEndBatchId", 1)
        .option("stateVarName", variable)
        .load(str(query.checkpoint))
    )
    data = [f for f in spark_feed.columns if f not in ("batch_id", "change_type", "partition_id")]
    theirs = sorted((r.batch_id, PUT[r.change_type], flat(r, data), r.partition_id)
                    for r in spark_feed.collect())  # fmt: skip
    ours = sorted((r[0], PUT[r[1]], tuple(r[2:-1]), r[-1])
                  for r in changes(spark, f"cft.tws_0.{variable}", 0, 1).collect())  # fmt: skip
    assert ours == theirs and ours
