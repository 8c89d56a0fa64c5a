"""Writing transformWithState state with SQL: value, list and map state variables and timers.

Every test edits a copy of the session's ``tws`` checkpoint (RocksDB, one column family per state
variable) and, where it matters, restarts the real streaming query on it with the default restart
wave (alice: apple 1 at 10:07 and the duplicate pear 7; dave: plum 8). The fixture state after
batches 0 and 1:

    count   alice 2, bob 2, carol 1
    history alice [10, 7], bob [5, 5], carol [3]
    items   alice {apple: 1, pear: 1}, bob {pear: 2}, carol {apple: 1}
    timers  alice 1704106920000, bob 1704106860000, carol 1704107160000 (latest event + 1 hour)

After each write the catalog's rows must equal Spark's own ``statestore`` reader, and refused
writes must leave the checkpoint byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.state_rows import leaf_rows
from tests.support.streaming_queries import StreamingQuery

CATALOG = "wt"
ALICE_TIMER = 1704106920000
"""alice's timer after the default run: her latest event (10:02) + 1 hour."""

Copy = Callable[[], StreamingQuery]


@pytest.fixture()
def tws(private_copy) -> Copy:
    """A private copy of the tws checkpoint (fresh, empty input folder), attached as ``wt``."""

    def make() -> StreamingQuery:
        return private_copy("tws", "rocksdb", CATALOG)

    return make


def table(name: str) -> str:
    return f"{CATALOG}.tws_0.{name}"


def rows(spark, name: str) -> list[tuple]:
    """The table's rows, sorted."""
    return sorted(tuple(r) for r in spark.table(table(name)).collect())


def restart(spark, query: StreamingQuery) -> dict[str, int]:
    """Restart the query with the default restart wave; its output as user -> count."""
    return {r["user"]: r["count"] for r in query.restart(spark)}


def assert_same_as_spark_reader(spark, query: StreamingQuery, name: str) -> None:
    """The catalog's flat rows hold exactly the values Spark's own state reader returns."""
    reader = spark.read.format("statestore").option("path", str(query.checkpoint))
    reader = (
        reader.option("readRegisteredTimers", "true")
        if name == "timers"
        else reader.option("stateVarName", name)
    )
    flat = spark.table(table(name)).select("*", "partition_id")
    assert leaf_rows(flat) == leaf_rows(reader.load())


def raw_family(spark, query: StreamingQuery, family: str) -> list:
    """Rows (key_bytes, value_bytes) of one column family, through Spark's raw reader."""
    raw = (
        spark.read.format("statestore")
        .option("path", str(query.checkpoint))
        .option("_readAllColumnFamilies", "true")
        .load()
    )
    return raw.where(raw.column_family_name == family).collect()


def assert_row_counters_match(spark, query: StreamingQuery) -> None:
    """ListState's ``$rowCounter_history`` holds each user's number of elements.

    A counter value is an UnsafeRow with one long: 8 bytes of null bits, then the long.
    """
    counters = sorted(
        int.from_bytes(bytes(r.value_bytes)[8:16], "little")
        for r in raw_family(spark, query, "$rowCounter_history")
    )
    lengths: dict[str, int] = {}
    for user, _ in rows(spark, "history"):
        lengths[user] = lengths.get(user, 0) + 1
    assert counters == sorted(lengths.values())


# ---- ValueState ----


@pytest.mark.slow
def test_value_upsert_delete_overwrite(spark, tws: Copy) -> None:
    query = tws()
    n = last_batch(query.checkpoint)
    spark.sql(f"INSERT INTO {table('count')} VALUES ('alice', 100), ('zed', 7)")
    assert rows(spark, "count") == [("alice", 100), ("bob", 2), ("carol", 1), ("zed", 7)]
    spark.sql(f"DELETE FROM {table('count')} WHERE user = 'zed'")
    assert last_batch(query.checkpoint) == n + 2
    assert_same_as_spark_reader(spark, query, "count")
    assert restart(spark, query) == {"alice": 102, "dave": 1}  # alice continues from 100


@pytest.mark.slow
def test_value_deleted_user_starts_over(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"DELETE FROM {table('count')} WHERE user = 'alice'")
    assert rows(spark, "count") == [("bob", 2), ("carol", 1)]
    assert restart(spark, query) == {"alice": 2, "dave": 1}


@pytest.mark.slow
def test_value_overwrite_replaces_all_users(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"INSERT OVERWRITE {table('count')} SELECT 'alice', 40L")
    assert rows(spark, "count") == [("alice", 40)]
    assert_same_as_spark_reader(spark, query, "count")
    # the other variables are carried over untouched
    assert ("bob", 5) in rows(spark, "history")
    assert restart(spark, query) == {"alice": 42, "dave": 1}


# ---- MapState ----


@pytest.mark.slow
def test_map_upsert_and_delete(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"INSERT INTO {table('items')} VALUES ('alice', 'apple', 50), ('alice', 'kiwi', 3)")
    spark.sql(f"DELETE FROM {table('items')} WHERE user = 'alice' AND item = 'pear'")
    assert [r for r in rows(spark, "items") if r[0] == "alice"] == [
        ("alice", "apple", 50),
        ("alice", "kiwi", 3),
    ]
    assert ("bob", "pear", 2) in rows(spark, "items")
    assert_same_as_spark_reader(spark, query, "items")
    restart(spark, query)  # apple 1 more for alice; the duplicate event counts pear once again
    assert [r for r in rows(spark, "items") if r[0] == "alice"] == [
        ("alice", "apple", 51),
        ("alice", "kiwi", 3),
        ("alice", "pear", 1),
    ]
    assert ("dave", "plum", 1) in rows(spark, "items")


# ---- ListState ----


@pytest.mark.slow
def test_list_insert_appends(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"INSERT INTO {table('history')} VALUES ('alice', 100), ('zed', 9)")
    assert sorted(r[1] for r in rows(spark, "history") if r[0] == "alice") == [7, 10, 100]
    assert_same_as_spark_reader(spark, query, "history")
    assert_row_counters_match(spark, query)
    restart(spark, query)  # the query appends to the written lists
    assert sorted(r[1] for r in rows(spark, "history") if r[0] == "alice") == [1, 7, 7, 10, 100]
    assert [r for r in rows(spark, "history") if r[0] == "zed"] == [("zed", 9)]


@pytest.mark.slow
def test_list_delete_and_overwrite(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"DELETE FROM {table('history')} WHERE user = 'bob' OR amount = 10")
    assert rows(spark, "history") == [("alice", 7), ("carol", 3)]
    assert_same_as_spark_reader(spark, query, "history")
    spark.sql(f"INSERT OVERWRITE {table('history')} VALUES ('carol', 1), ('carol', 2)")
    assert rows(spark, "history") == [("carol", 1), ("carol", 2)]
    assert_same_as_spark_reader(spark, query, "history")
    assert_row_counters_match(spark, query)
    restart(spark, query)
    assert rows(spark, "history") == [
        ("alice", 1),
        ("alice", 7),
        ("carol", 1),
        ("carol", 2),
        ("dave", 8),
    ]


# ---- timers ----


@pytest.mark.slow
def test_timers_register_and_delete(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"INSERT INTO {table('timers')} VALUES ('zed', 1704200000000)")
    spark.sql(f"DELETE FROM {table('timers')} WHERE user = 'bob'")
    assert rows(spark, "timers") == [
        ("alice", ALICE_TIMER),
        ("carol", 1704107160000),
        ("zed", 1704200000000),
    ]
    assert_same_as_spark_reader(spark, query, "timers")
    # both indexes: the event-time index (timestampToKey) lists the same timers
    assert len(raw_family(spark, query, "$eventTimers_timestampToKey")) == 3
    restart(spark, query)  # alice's timer moves to her latest event (10:07) + 1 hour
    assert rows(spark, "timers") == [
        ("alice", 1704107220000),
        ("carol", 1704107160000),
        ("dave", 1704107280000),
        ("zed", 1704200000000),
    ]


# ---- refused writes change nothing ----

REFUSED = [
    ("INSERT INTO {count} VALUES ('zed', 1.5)", r"SAVEPOINT_TYPE_MISMATCH.*tws_0\.count.*count"),
    (
        "INSERT INTO {count} VALUES (CAST(NULL AS STRING), 1L)",
        r"SAVEPOINT_NULL_KEY.*tws_0\.count.*key column user is NULL",
    ),
    (
        "INSERT INTO {count} VALUES ('zed', 1L), ('zed', 2L)",
        r"SAVEPOINT_DUPLICATE_KEY.*tws_0\.count.*user=zed",
    ),
    (
        "INSERT INTO {items} VALUES ('amy', 'fig', 1L), ('amy', 'fig', 2L)",
        r"SAVEPOINT_DUPLICATE_KEY.*tws_0\.items.*user=amy, item=fig",
    ),
    (
        "INSERT INTO {items} VALUES ('amy', CAST(NULL AS STRING), 1L)",
        r"SAVEPOINT_NULL_KEY.*tws_0\.items.*key column item is NULL",
    ),
    (
        "INSERT INTO {items} VALUES ('amy', 1, 1L)",
        r"SAVEPOINT_TYPE_MISMATCH.*tws_0\.items.*item \(key\) is STRING",
    ),
    (
        "INSERT INTO {timers} VALUES ('amy', 5)",
        r"SAVEPOINT_TYPE_MISMATCH.*tws_0\.timers.*expiration_timestamp_ms \(key\) is BIGINT",
    ),
    ("INSERT INTO {history} VALUES ('amy')", r"SAVEPOINT_COLUMN_MISMATCH.*tws_0\.history"),
]


@pytest.mark.parametrize(
    ("statement", "message"),
    REFUSED,
    ids=[m.split(".")[0].split("SAVEPOINT_")[1] + f"-{i}" for i, (_, m) in enumerate(REFUSED)],
)
def test_refused_write_changes_nothing(spark, tws: Copy, statement: str, message: str) -> None:
    query = tws()
    before = snapshot(query.checkpoint)
    names = {n: table(n) for n in ("count", "items", "history", "timers")}
    with pytest.raises(Exception, match=message) as error:
        spark.sql(statement.format(**names))
    assert str(query.checkpoint) in str(error.value)
    assert snapshot(query.checkpoint) == before


# ---- UPDATE and MERGE (copy-on-write, like DELETE) ----


@pytest.mark.slow
def test_update_and_merge_on_map_list_and_timers(spark, tws: Copy) -> None:
    query = tws()
    spark.sql(f"UPDATE {table('items')} SET count = 50 WHERE user = 'alice' AND item = 'apple'")
    spark.sql(
        f"MERGE INTO {table('history')} AS t USING (SELECT 'bob' AS user, 5L AS amount) AS c"
        " ON t.user = c.user AND t.amount = c.amount WHEN MATCHED THEN DELETE"
    )  # both of bob's 5s: his list is emptied and its row counter removed
    spark.sql(
        f"MERGE INTO {table('timers')} AS t USING (SELECT 'zed' AS user) AS c"
        " ON t.user = c.user WHEN NOT MATCHED THEN"
        " INSERT (user, expiration_timestamp_ms) VALUES (c.user, 1704200000000)"
    )
    assert [r for r in rows(spark, "items") if r[:2] == ("alice", "apple")] == [
        ("alice", "apple", 50)
    ]
    assert [r for r in rows(spark, "history") if r[0] == "bob"] == []
    assert ("zed", 1704200000000) in rows(spark, "timers")
    for name in ("items", "history", "timers"):
        assert_same_as_spark_reader(spark, query, name)
    assert_row_counters_match(spark, query)
    assert len(raw_family(spark, query, "$eventTimers_timestampToKey")) == 4
    restart(spark, query)  # the query continues from the edited state
    assert [r for r in rows(spark, "items") if r[:2] == ("alice", "apple")] == [
        ("alice", "apple", 51)
    ]
