"""A filter that pins every key column becomes a key lookup (one partition loaded, the keys read
with ``get``), and returns exactly what a scan returns; any other filter scans."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_savepoint import attach, restore_savepoint
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import CASES, UIDS, build

KEY_COLUMN = {"agg": "user", "dedup": "event_id", "pandas_state": "user"}
LOOKUP_CASES = [(k, p) for k, p in CASES if k in KEY_COLUMN]


def is_lookup(df: DataFrame) -> bool:
    return "key lookup" in df._jdf.queryExecution().executedPlan().toString()


def rows(df: DataFrame) -> list:
    return sorted(df.collect(), key=repr)


@pytest.mark.parametrize(
    ("kind", "provider"), LOOKUP_CASES, ids=[f"{k}-{p}" for k, p in LOOKUP_CASES]
)
def test_every_key_looks_up_as_a_scan_finds_it(spark, checkpoints, kind, provider) -> None:
    attach(spark, str(checkpoints[(kind, provider)].checkpoint), "lk")
    table, key = f"lk.{UIDS[kind]}.default", KEY_COLUMN[kind]
    with_partition = spark.table(table).select("*", "partition_id")  # metadata column too
    stored = with_partition.collect()
    assert len(stored) >= 3

    for row in stored:
        lookup = with_partition.where(F.col(key) == row[key])
        assert is_lookup(lookup)
        assert lookup.collect() == [row]

    missing = "nobody" if key == "user" else 999
    assert spark.table(table).where(F.col(key) == missing).collect() == []
    every = with_partition.where(F.col(key).isin([r[key] for r in stored] + [missing]))
    assert is_lookup(every)
    assert rows(every) == sorted(stored, key=repr)


def test_lookup_in_sql_with_other_predicates(spark, checkpoints) -> None:
    attach(spark, str(checkpoints[("agg", "rocksdb")].checkpoint), "lk")
    alice = spark.sql("SELECT * FROM lk.agg_0.default WHERE user = 'alice'").collect()
    assert [(r.user, r.cnt) for r in alice] == [("alice", 2)]

    cases = {
        "'alice' = user": alice,
        "user <=> 'alice'": alice,
        "user = 'alice' AND cnt > 100": [],
        "user IN ('alice', 'bob') AND user = 'bob'": spark.sql(
            "SELECT * FROM lk.agg_0.default WHERE user = 'bob'"
        ).collect(),
    }
    for where, expected in cases.items():
        df = spark.sql(f"SELECT * FROM lk.agg_0.default WHERE {where}")
        assert is_lookup(df), where
        assert df.collect() == expected, where


@pytest.mark.slow
def test_other_filters_scan_and_agree(spark, checkpoints) -> None:
    attach(spark, str(checkpoints[("agg", "hdfs")].checkpoint), "lk")
    everything = spark.table("lk.agg_0.default").collect()
    for where, keep in {
        "user > 'b'": lambda r: r.user > "b",
        "user = 'alice' OR cnt = 1": lambda r: r.user == "alice" or r.cnt == 1,
        "user <=> NULL": lambda r: r.user is None,
        "upper(user) = 'ALICE'": lambda r: r.user == "alice",
    }.items():
        df = spark.sql(f"SELECT * FROM lk.agg_0.default WHERE {where}")
        assert not is_lookup(df), where
        assert rows(df) == sorted(filter(keep, everything), key=repr), where


def test_a_partial_key_scans(spark, checkpoints) -> None:
    """A window aggregation's key is (window, user): a filter on user alone pins no key."""
    attach(spark, str(checkpoints[("window_agg", "rocksdb")].checkpoint), "lk")
    df = spark.sql("SELECT * FROM lk.agg_0.default WHERE user = 'alice'")
    assert not is_lookup(df)
    expected = [r for r in spark.table("lk.agg_0.default").collect() if r.user == "alice"]
    assert expected and rows(df) == sorted(expected, key=repr)


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_lookup_as_of_an_earlier_batch(spark, checkpoints, provider) -> None:
    attach(spark, str(checkpoints[("agg", provider)].checkpoint), "lk")
    for batch, count in ((0, 1), (1, 2)):  # bob's second event came in batch 1
        df = spark.sql(f"SELECT * FROM lk.agg_0.default VERSION AS OF {batch} WHERE user = 'bob'")
        assert is_lookup(df)
        assert [r.cnt for r in df.collect()] == [count]


def test_delete_by_key_keeps_every_other_key(spark, private_copy) -> None:
    """DELETE reads every row even when its condition pins a key: the write replaces the
    table with what the read returns."""
    private_copy("agg", "rocksdb", catalog="lk")
    before = spark.table("lk.agg_0.default").collect()
    spark.sql("DELETE FROM lk.agg_0.default WHERE user = 'alice'")
    after = spark.table("lk.agg_0.default").collect()
    assert sorted(after, key=repr) == sorted((r for r in before if r.user != "alice"), key=repr)
    assert len(after) == len(before) - 1


@pytest.mark.slow
def test_hdfs_keys_are_read_from_the_files_spark_loads(spark, tmp_path: Path) -> None:
    """An HDFS-backed lookup, and an upsert of a few keys, read just their keys from the
    partition's files (its newest snapshot, then the deltas after it) instead of loading every
    entry. Built here: a restore's snapshots, an upsert's deltas over them, then the query's own
    deltas, whose watermark evicts events 2 and 3 (removals). At every batch a lookup of every
    key ever stored finds what a scan finds, the scan (streamed from the files) what Spark's
    reader loads, and the query continued from the upsert; a DELETE walking the stored entries
    leaves what Spark loads."""
    built = build(spark, "dedup_watermark", "hdfs", tmp_path / "query")
    restored = tmp_path / "restored"
    restore_savepoint(spark, str(built.checkpoint), str(restored), partitions=3)
    first = last_batch(restored)
    attach(spark, str(restored), "hk")
    spark.sql(
        "INSERT INTO hk.dedup_0.default (event_id, ts) VALUES"
        " (5, TIMESTAMP'2024-01-01 10:07:00'), (7, TIMESTAMP'2024-01-01 10:30:00')"
    )
    emitted = built.with_checkpoint(restored).restart(spark)
    assert [r["event_id"] for r in emitted] == [6]  # 5 is known from the upsert, 3 is late
    last = last_batch(restored)
    version = {p.name for p in (restored / "state" / "0" / "0").iterdir()}
    assert f"{first + 1}.snapshot" in version and f"{last + 1}.delta" in version

    table = "hk.dedup_0.default"
    at = {b: spark.sql(f"SELECT * FROM {table} VERSION AS OF {b}") for b in range(first, last + 1)}
    stored = {b: df.collect() for b, df in at.items()}
    every = {(r.event_id, r.ts) for rows in stored.values() for r in rows}
    assert {e for e, _ in every} == {2, 3, 4, 5, 6, 7}
    assert sorted(r.event_id for r in stored[last]) == [4, 5, 6, 7]  # 2 and 3 evicted
    for batch, df in at.items():
        for event_id, ts in every:
            lookup = df.where((F.col("event_id") == event_id) & (F.col("ts") == ts))
            assert is_lookup(lookup)
            found = [r for r in stored[batch] if (r.event_id, r.ts) == (event_id, ts)]
            assert lookup.collect() == found, (batch, event_id)
        # the scan streams the files (snapshot, then the deltas' changes): Spark loads the same
        assert sorted(stored[batch]) == spark_rows(spark, restored, batch), batch

    # a DELETE walks the stored entries (streamed, sorted) and removes what it was not given
    spark.sql(f"DELETE FROM {table} WHERE event_id = 4")
    deleted = last_batch(restored)
    assert sorted(r.event_id for r in spark.table(table).collect()) == [5, 6, 7]
    assert spark_rows(spark, restored, deleted) == sorted(spark.table(table).collect())


def spark_rows(spark, checkpoint: Path, batch: int) -> list:
    """The keys of a dropDuplicates state at ``batch`` as Spark's own state reader loads them."""
    raw = spark.read.format("statestore").option("batchId", batch).load(str(checkpoint))
    return sorted(raw.select("key.*").collect())
