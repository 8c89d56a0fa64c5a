"""Writing state with SQL: each statement is one new committed micro-batch of the checkpoint.

The decisive check of every write is the real streaming query restarted on the edited checkpoint
with new input (the kind's default restart wave): its output must reflect the edit. The shared
session checkpoints are never edited: every test works on a copy of the checkpoint, with a fresh,
empty input folder that receives only the restart wave.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from spark_savepoint import attach
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import StreamingQuery

CATALOG = "wr"
WRITABLE = [
    (kind, provider)
    for kind in ("agg", "dedup", "pandas_state")
    for provider in ("hdfs", "rocksdb")
]

Copy = Callable[[str, str], tuple[StreamingQuery, str]]


@pytest.fixture()
def copy(private_copy) -> Copy:
    """Copy a session checkpoint into tmp_path and attach it; returns (query, table name)."""

    def make(kind: str, provider: str) -> tuple[StreamingQuery, str]:
        query = private_copy(kind, provider, CATALOG)
        return query, f"{CATALOG}.{query.uid}.default"

    return make


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


# ---- upsert, delete, replace: verified by restarting the real query ----

UPSERT = {
    "agg": (
        "INSERT INTO {t} VALUES ('alice', 100, 1000), ('zed', 5, 50)",
        [{"user": "alice", "cnt": 102, "total": 1008}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    "pandas_state": (
        "INSERT INTO {t} SELECT 'alice' AS user, 100 AS cnt, 1000L AS total",
        [{"user": "alice", "cnt": 102, "total": 1008}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    "dedup": ("INSERT INTO {t} VALUES (CAST(6 AS BIGINT))", [5]),
}


@pytest.mark.parametrize(("kind", "provider"), WRITABLE)
def test_upsert_is_seen_by_restarted_query(spark, copy: Copy, kind: str, provider: str) -> None:
    query, table = copy(kind, provider)
    before = last_batch(query.checkpoint)
    statement, expected = UPSERT[kind]
    spark.sql(statement.format(t=table))
    assert last_batch(query.checkpoint) == before + 1
    out = query.restart(spark)
    if kind == "dedup":  # 6 is now known, 3 was already: only 5 is new
        assert [r["event_id"] for r in out] == expected
    else:  # alice continues from the written counter, dave starts fresh
        assert out == expected


def test_a_large_hdfs_upsert_loads_the_partitions_it_fills(spark, copy: Copy) -> None:
    """An upsert into HDFS-backed state holds its rows to read only their keys' entries; past
    10,000 rows in a partition (here about 15,000 in each of 4) it loads the partition and
    applies them all. Every row lands, and the query continues from it."""
    query, table = copy("agg", "hdfs")
    before = rows(spark, table)
    spark.sql(
        f"INSERT INTO {table} SELECT concat('u', id), id, 2 * id FROM range(60000)"
        " UNION ALL SELECT 'alice', 100, 1000"
    )
    after = spark.table(table)
    assert after.count() == len(before) + 60000
    assert after.where("user = 'u59999'").collect()[0][1:] == (59999, 119998)
    assert sorted(tuple(r) for r in after.where("user NOT LIKE 'u%'").collect()) == sorted(
        (u, 100, 1000) if u == "alice" else (u, c, t) for u, c, t in before
    )
    assert query.restart(spark) == UPSERT["agg"][1]


DELETE = {
    "agg": (
        "DELETE FROM {t} WHERE user = 'alice'",
        [{"user": "alice", "cnt": 2, "total": 8}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    "pandas_state": (
        "DELETE FROM {t} WHERE user = 'alice'",
        [{"user": "alice", "cnt": 2, "total": 8}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    "dedup": ("DELETE FROM {t} WHERE event_id = 3", [3, 5, 6]),
}


@pytest.mark.parametrize(("kind", "provider"), WRITABLE)
def test_deleted_key_starts_over(spark, copy: Copy, kind: str, provider: str) -> None:
    query, table = copy(kind, provider)
    statement, expected = DELETE[kind]
    spark.sql(statement.format(t=table))
    out = query.restart(spark)
    assert ([r["event_id"] for r in out] if kind == "dedup" else out) == expected


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_dataframe_append_and_overwrite(spark, copy: Copy, provider: str) -> None:
    query, table = copy("agg", provider)
    df = spark.createDataFrame([("zed", 5, 50)], "user string, cnt bigint, total bigint")
    df.writeTo(table).append()
    assert ("zed", 5, 50) in rows(spark, table)
    spark.createDataFrame([("alice", 40, 400)], "user string, cnt int, total int").writeTo(
        table
    ).overwrite(F.lit(True))
    assert rows(spark, table) == [("alice", 40, 400)]
    spark.sql(f"INSERT OVERWRITE {table} SELECT user, cnt + 1, total FROM {table}")
    assert rows(spark, table) == [("alice", 41, 400)]
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 43, "total": 408},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


def test_update_sets_values_and_refuses_what_the_policy_refuses(spark, copy: Copy) -> None:
    """UPDATE goes through Spark's store assignment policy (more in test_update_merge.py): a
    string for a number is refused before anything is written; a value update is one batch."""
    query, table = copy("agg", "hdfs")
    before = snapshot(query.checkpoint)
    with pytest.raises(Exception, match="INCOMPATIBLE_DATA_FOR_TABLE"):
        spark.sql(f"UPDATE {table} SET cnt = 'many' WHERE user = 'alice'")
    assert snapshot(query.checkpoint) == before
    spark.sql(f"UPDATE {table} SET cnt = 100, total = 1000 WHERE user = 'alice'")
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 102, "total": 1008},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


# ---- the batch a write commits ----


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_write_is_one_new_batch(spark, copy: Copy, provider: str) -> None:
    query, table = copy("agg", provider)
    n = last_batch(query.checkpoint)
    ckpt = query.checkpoint
    old = snapshot(ckpt)
    spark.sql(f"INSERT INTO {table} VALUES ('zed', 5, 50)")
    new = snapshot(ckpt)
    assert {k: v for k, v in new.items() if k in old} == old  # nothing earlier was modified
    offsets = ckpt / "offsets"
    assert (offsets / str(n + 1)).read_bytes() == (offsets / str(n)).read_bytes()
    # commits/n+1 is commits/n marked with the edit's claim id and entry counts (Spark skips
    # fields it does not know)
    version_line, entry = (ckpt / "commits" / str(n + 1)).read_text().split("\n", 1)
    previous = json.loads((ckpt / "commits" / str(n)).read_text().split("\n", 1)[1])
    marked = json.loads(entry)
    claim = next((ckpt / "_savepoint" / "edits").glob(f"{n + 1}.*.json")).name
    assert version_line == "v1" and marked.pop("savepointEdit") == claim.split(".")[1]
    assert marked.pop("savepointEditRows") == {"written": 1, "removed": 0}
    assert marked == previous
    version = str(n + 2)
    for partition in range(4):  # every partition has the new version, edited or not
        names = [Path(k).name for k in set(new) - set(old) if k.startswith(f"state/0/{partition}/")]
        assert any(name.startswith(version + ".") for name in names), (partition, names)
    assert ("zed", 5, 50) in rows(spark, table)


def test_partition_ids_match_the_query_hash(spark, copy: Copy) -> None:
    _, table = copy("agg", "rocksdb")
    users = [f"u{i}" for i in range(40)]
    spark.createDataFrame([(u, 1, 1) for u in users], "user string, cnt long, total long").writeTo(
        table
    ).append()
    mismatched = spark.table(table).where("partition_id != pmod(hash(user), 4)").count()
    assert mismatched == 0


# ---- rollback ----


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_rollback_to_an_earlier_batch(spark, copy: Copy, provider: str) -> None:
    query, table = copy("agg", provider)
    n = last_batch(query.checkpoint)
    original = rows(spark, table)
    spark.sql(f"INSERT INTO {table} VALUES ('alice', 100, 1000), ('zed', 5, 50)")
    spark.sql(f"DELETE FROM {table} WHERE user = 'bob'")
    spark.sql(f"INSERT OVERWRITE {table} SELECT * FROM {table} VERSION AS OF {n}")
    assert rows(spark, table) == original
    assert last_batch(query.checkpoint) == n + 3
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 4, "total": 25},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


# ---- refused writes change nothing ----

REFUSED = [
    (
        "agg",
        "hdfs",
        "INSERT INTO {t} VALUES ('zed', 1.5, 2)",
        r"SAVEPOINT_TYPE_MISMATCH.*agg_0\.default.*column cnt is BIGINT.*DECIMAL",
    ),
    (
        "agg",
        "hdfs",
        "INSERT INTO {t} VALUES ('zed', 1)",
        r"SAVEPOINT_COLUMN_MISMATCH.*agg_0\.default.*gives 2 columns",
    ),
    (
        "dedup",
        "hdfs",
        "INSERT INTO {t} VALUES (6.5)",
        r"SAVEPOINT_TYPE_MISMATCH.*dedup_0\.default.*event_id \(key\) is BIGINT.*DECIMAL.*CAST",
    ),
    (
        "agg",
        "hdfs",
        "INSERT INTO {t} VALUES (CAST(NULL AS STRING), 1, 2)",
        r"SAVEPOINT_NULL_KEY.*agg_0\.default.*key column user is NULL",
    ),
    (
        "agg",
        "rocksdb",
        "INSERT INTO {t} VALUES ('zed', 1, 1), ('amy', 1, 1), ('zed', 2, 2)",
        r"SAVEPOINT_DUPLICATE_KEY.*agg_0\.default.*user=zed",
    ),
    (
        "pandas_state",
        "rocksdb",
        "INSERT INTO {t} SELECT 'amy', 1, 1 UNION ALL SELECT 'amy', 1, 2",
        r"SAVEPOINT_DUPLICATE_KEY.*groupstate_0\.default.*user=amy",
    ),
    (
        "join",
        "hdfs",
        "DELETE FROM wr.join_0.right_keyWithIndexToValue WHERE true",
        r"SAVEPOINT_READ_ONLY_STATE.*join_0\.right_keyWithIndexToValue.*write the join side",
    ),
]


@pytest.mark.parametrize(
    ("kind", "provider", "statement", "message"),
    REFUSED,
    ids=[m.split(".")[0].split("SAVEPOINT_")[1] + f"-{k}-{p}" for k, p, _, m in REFUSED],
)
def test_refused_write_changes_nothing(
    spark, copy: Copy, kind: str, provider: str, statement: str, message: str
) -> None:
    query, table = copy(kind, provider)
    before = snapshot(query.checkpoint)
    with pytest.raises(Exception, match=message) as error:
        spark.sql(statement.format(t=table))
    assert str(query.checkpoint) in str(error.value)
    assert snapshot(query.checkpoint) == before


def test_uncommitted_last_batch_is_refused(spark, copy: Copy) -> None:
    query, table = copy("agg", "hdfs")
    n = last_batch(query.checkpoint)
    shutil.copy(query.checkpoint / "offsets" / str(n), query.checkpoint / "offsets" / str(n + 1))
    before = snapshot(query.checkpoint)
    with pytest.raises(
        Exception,
        match=rf"SAVEPOINT_UNCOMMITTED_BATCH.*agg_0\.default.*"
        rf"batch {n + 1} is planned.*Stop the query",
    ):
        spark.sql(f"INSERT INTO {table} VALUES ('zed', 5, 50)")
    assert snapshot(query.checkpoint) == before


def test_write_is_refused_while_the_query_runs(spark, tmp_path: Path) -> None:
    from tests.support.streaming_queries import KINDS, build

    query = build(spark, "agg", "hdfs", tmp_path / "running")
    attach(spark, str(query.checkpoint), CATALOG)
    before = snapshot(query.checkpoint)
    running = (
        KINDS["agg"].query(spark, query.input_dir).writeStream.outputMode("update")
        .format("noop").option("checkpointLocation", str(query.checkpoint))
        .trigger(processingTime="1 hour").start()
    )  # fmt: skip
    try:
        running.processAllAvailable()
        before = snapshot(query.checkpoint)
        with pytest.raises(Exception, match=r"SAVEPOINT_QUERY_RUNNING.*agg_0\.default.*Stop it"):
            spark.sql(f"INSERT INTO {CATALOG}.agg_0.default VALUES ('zed', 1, 1)")
        assert snapshot(query.checkpoint) == before
    finally:
        running.stop()
    spark.sql(f"INSERT INTO {CATALOG}.agg_0.default VALUES ('zed', 1, 1)")
    assert ("zed", 1, 1) in rows(spark, f"{CATALOG}.agg_0.default")


def test_key_from_an_unnamed_expression(spark, copy: Copy) -> None:
    query, table = copy("agg", "rocksdb")
    spark.sql(f"INSERT INTO {table} SELECT concat('z', 'ed'), 5, 50")
    assert ("zed", 5, 50) in rows(spark, table)


def test_narrower_whole_number_key_is_widened(spark, copy: Copy) -> None:
    """An INT literal for a BIGINT key is cast before the write: same partition as 6L."""
    query, table = copy("dedup", "hdfs")
    spark.sql(f"INSERT INTO {table} VALUES (6), (CAST(7 AS SMALLINT))")
    written = {
        r.event_id: r.partition_id
        for r in spark.sql(f"SELECT *, partition_id FROM {table}").collect()
    }
    expected = spark.sql("SELECT pmod(hash(6L), 4) AS a, pmod(hash(7L), 4) AS b").first()
    assert (written[6], written[7]) == (expected.a, expected.b)
    out = query.restart(spark)  # event 6 of the restart wave is now a duplicate
    assert 6 not in [r["event_id"] for r in out]


def test_catalog_reuses_the_checkpoint_until_a_batch_commits(spark, copy: Copy) -> None:
    """One statement's many catalog calls open the checkpoint once; an edit's batch, and time
    travel to the batch before it, are seen by the next statement."""
    _, table = copy("agg", "hdfs")
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog(CATALOG)
    opened = catalog.checkpoint()
    spark.sql(f"SHOW TABLES IN {CATALOG}.agg_0").collect()
    assert catalog.checkpoint().equals(opened)  # the same object: nothing new in the logs
    spark.sql(f"INSERT INTO {table} VALUES ('zed', 1L, 1L)")
    assert not catalog.checkpoint().equals(opened)
    assert catalog.checkpoint().lastCommitted() == opened.lastCommitted() + 1
    assert ("zed", 1, 1) in rows(spark, table)
    before = spark.sql(f"SELECT * FROM {table} VERSION AS OF {opened.lastCommitted()}")
    assert "zed" not in [row[0] for row in before.collect()]
