"""Writes into a stream-stream join's side tables (``join_0.left``, ``join_0.right``): each side's
two stores stay consistent (``keyToNumValues`` counts the rows at indexes 0..n-1 of
``keyWithIndexToValue``), and the restarted join treats written rows as rows that arrived
earlier: a row added to the state joins with a later row of the other side, a removed row no
longer does, a changed row joins with its new values.

State after the fixture's two batches: left a (10:00, 1), b (10:01, 2), c (10:02, 3); right a
(10:03, 10), b (10:04, 20), d (10:05, 40). The restart wave brings right c (10:06, 30) and left
d (10:07, 4), which join with left c and right d from the state.
"""

from __future__ import annotations

import pytest

from spark_savepoint import edit, last_edit
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import restart_rows

CATALOG = "jw"
LEFT = f"{CATALOG}.join_0.left"
RIGHT = f"{CATALOG}.join_0.right"


def joined(key: str, left: tuple[str, int], right: tuple[str, int]) -> dict:
    return {
        "key": key,
        "left_ts": f"2024-01-01 {left[0]}:00",
        "left_value": left[1],
        "right_ts": f"2024-01-01 {right[0]}:00",
        "right_value": right[1],
    }


def right_row(key: str, clock: str, value: int) -> dict:
    """An input row of the right side."""
    return {"side": "right", "key": key, "ts": f"2024-01-01 {clock}:00", "value": value}


def stores(spark, side: str) -> tuple[list[tuple], list[tuple]]:
    """A side's two stores: (key, count) and (key, index, value, matched) rows."""
    counts = spark.table(f"{CATALOG}.join_0.{side}_keyToNumValues").collect()
    values = spark.table(f"{CATALOG}.join_0.{side}_keyWithIndexToValue").collect()
    return (
        sorted((r[0], r[1]) for r in counts),
        sorted((r[0], r[1], r[4], r[5]) for r in values),
    )


@pytest.mark.parametrize("provider", ["rocksdb", "hdfs"])
@pytest.mark.slow
def test_insert_and_delete_change_what_the_restarted_join_emits(
    spark, private_copy, provider: str
) -> None:
    query = private_copy("join", provider, CATALOG)
    batch = last_batch(query.checkpoint)
    spark.sql(
        f"INSERT INTO {LEFT} VALUES ('e', 'e', TIMESTAMP '2024-01-01 10:06:00', 5),"
        " ('e', 'e', TIMESTAMP '2024-01-01 10:07:00', 6)"
    )
    spark.sql(f"DELETE FROM {LEFT} WHERE field0 = 'c'")
    assert last_batch(query.checkpoint) == batch + 2 and last_edit(spark).removed == 2
    counts, values = stores(spark, "left")
    assert counts == [("a", 1), ("b", 1), ("e", 2)]
    assert [(k, i, v) for k, i, v, _ in values] == [
        ("a", 0, 1), ("b", 0, 2), ("e", 0, 5), ("e", 1, 6)
    ]  # fmt: skip
    assert {(k, m) for k, _, _, m in values} == {("a", True), ("b", True), ("e", False)}

    query.add_input([*restart_rows("join"), right_row("e", "10:08", 50)])
    emitted = sorted(query.run(spark), key=lambda r: (r["key"], r["left_ts"]))
    assert emitted == [  # no c: left c is gone
        joined("d", ("10:07", 4), ("10:05", 40)),
        joined("e", ("10:06", 5), ("10:08", 50)),
        joined("e", ("10:07", 6), ("10:08", 50)),
    ]


@pytest.mark.slow
def test_update_merge_and_overwrite_keep_the_stores_consistent(spark, private_copy) -> None:
    query = private_copy("join", "rocksdb", CATALOG)
    spark.sql(f"UPDATE {LEFT} SET left_value = 300 WHERE field0 = 'c'")
    counts, values = stores(spark, "left")
    assert ("c", 0, 300, False) in values and ("c", 1) in counts
    assert ("a", 0, 1, True) in values  # an unchanged row keeps its matched flag

    spark.sql(
        f"MERGE INTO {RIGHT} t USING (SELECT 'b' AS k) s ON t.field0 = s.k"
        " WHEN MATCHED THEN DELETE"
        " WHEN NOT MATCHED BY SOURCE AND t.field0 = 'd' THEN UPDATE SET right_value = 41"
    )
    counts, values = stores(spark, "right")
    assert counts == [("a", 1), ("d", 1)]
    assert [(k, i, v) for k, i, v, _ in values] == [("a", 0, 10), ("d", 0, 41)]

    emitted = sorted(query.restart(spark), key=lambda r: r["key"])
    assert emitted == [
        joined("c", ("10:02", 300), ("10:06", 30)),
        joined("d", ("10:07", 4), ("10:05", 41)),
    ]

    spark.sql(
        f"INSERT OVERWRITE {LEFT} VALUES ('z', 'z', TIMESTAMP '2024-01-01 10:09:00', 7),"
        " ('z', 'z', TIMESTAMP '2024-01-01 10:09:30', 8)"
    )
    counts, values = stores(spark, "left")
    assert counts == [("z", 2)]
    assert [(k, i, v) for k, i, v, _ in values] == [("z", 0, 7), ("z", 1, 8)]


@pytest.mark.slow
def test_both_sides_in_one_transaction(spark, private_copy) -> None:
    query = private_copy("join", "hdfs", CATALOG)
    batch = last_batch(query.checkpoint)
    with edit(spark) as tx:
        tx.sql(f"DELETE FROM {RIGHT} WHERE field0 = 'd'")
        tx.sql(f"INSERT INTO {LEFT} VALUES ('f', 'f', TIMESTAMP '2024-01-01 10:05:00', 9)")
    assert tx.report.batch_id == batch + 1 and last_batch(query.checkpoint) == batch + 1
    query.add_input([*restart_rows("join"), right_row("f", "10:08", 60)])
    emitted = sorted(query.run(spark), key=lambda r: r["key"])
    assert emitted == [  # left d finds no right d any more; right f finds left f
        joined("c", ("10:02", 3), ("10:06", 30)),
        joined("f", ("10:05", 9), ("10:08", 60)),
    ]
