"""transformWithState state with a TTL: each value carries ``ttlExpirationMs``, written as given,
and the TTL index (``$ttl_<name>``) moves with it, so that Spark's own TTL clean-up and reads
expire the state exactly as written: value and map entries one by one, list elements through the
list's smallest expiration (``$min_``, ``$count_``). The query keeps a count, the amounts and the
items per user with a one-hour TTL."""

from __future__ import annotations

import pytest

from spark_savepoint import attach, edit
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import build, write_file

CATALOG = "ttl"
COUNT = f"{CATALOG}.tws_0.count"
ITEMS = f"{CATALOG}.tws_0.items"
AMOUNTS = f"{CATALOG}.tws_0.amounts"
YEAR_2100_MS = 4102444800000


@pytest.mark.slow
def test_edited_expirations_expire_as_set(spark, tmp_path) -> None:
    query = build(spark, "tws_ttl", "rocksdb", tmp_path / "query")
    attach(spark, str(query.checkpoint), CATALOG)
    counts = {r["user"]: r for r in spark.table(COUNT).collect()}
    assert {u: r["value"]["count"] for u, r in counts.items()} == {"alice": 2, "bob": 2, "carol": 1}
    assert all(r["ttlExpirationMs"] > 1_700_000_000_000 for r in counts.values())

    batch = last_batch(query.checkpoint)
    spark.sql(f"UPDATE {COUNT} SET ttlExpirationMs = 1000 WHERE user IN ('alice', 'carol')")
    spark.sql(f"INSERT INTO {COUNT} VALUES ('zed', named_struct('count', 7L), {YEAR_2100_MS})")
    with edit(spark) as tx:  # two tables, each twice: one batch, each statement sees the last
        tx.sql(f"UPDATE {ITEMS} SET ttlExpirationMs = 1000 WHERE user = 'bob'")
        tx.sql(f"DELETE FROM {ITEMS} WHERE user = 'alice' AND item = 'pear'")
        tx.sql(f"INSERT INTO {AMOUNTS} VALUES ('zed', named_struct('amount', 5L), 1000)")
        tx.sql(f"DELETE FROM {AMOUNTS} WHERE user = 'bob'")
        tx.sql(f"INSERT INTO {AMOUNTS} VALUES ('zed', named_struct('amount', 6L), 2000)")
        tx.sql(f"DELETE FROM {AMOUNTS} WHERE user = 'zed' AND value.amount = 6")
    assert last_batch(query.checkpoint) == batch + 3

    write_file(query.input_dir, [
        {"event_id": 10, "user": "alice", "item": "fig", "amount": 1, "ts": "2024-01-01 10:10:00"},
        {"event_id": 11, "user": "zed", "item": "fig", "amount": 1, "ts": "2024-01-01 10:11:00"},
    ])  # fmt: skip
    # alice's count expired (it starts over), zed's was bootstrapped (it goes on)
    assert query.run(spark) == [{"user": "alice", "count": 1}, {"user": "zed", "count": 8}]
    after = {r["user"]: r["value"]["count"] for r in spark.table(COUNT).collect()}
    assert after == {"alice": 1, "bob": 2, "zed": 8}  # carol's expired entry was cleaned up
    items = sorted((r["user"], r["item"]) for r in spark.table(ITEMS).collect())
    # bob's entries expired and were cleaned up; alice's pear was deleted, her fig is new
    assert items == [("alice", "apple"), ("alice", "fig"), ("carol", "apple"), ("zed", "fig")]
    amounts = sorted((r["user"], r["value"]["amount"]) for r in spark.table(AMOUNTS).collect())
    # zed's expired element was cleaned up (its list's smallest expiration was indexed), the
    # element of the restart stays; bob's list was deleted
    assert amounts == [("alice", 1), ("alice", 7), ("alice", 10), ("carol", 3), ("zed", 1)]
