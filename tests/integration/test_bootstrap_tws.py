"""transformWithState bootstrap: the query's own StatefulProcessor runs over history per key and
its value, list and map variables and timers become the operator's state, as one batch; the
restarted query continues from it and the bootstrapped timers fire."""

from __future__ import annotations

import pytest

from spark_savepoint import (
    bootstrap_transform_with_state,
    savepoint_errors,
    transform_with_state_bootstrap,
)
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import tracker_class

CATALOG = "tb"
NS = f"{CATALOG}.tws_0"
X_TIMER = 1704104400000 + 3_600_000  # x's last event (10:20 UTC) + 1 hour


def event(event_id: int, user: str, item: str, amount: int, clock: str) -> dict:
    return {"event_id": event_id, "user": user, "item": item, "amount": amount,
            "ts": f"2024-01-01 {clock}:00"}  # fmt: skip


@pytest.fixture()
def history(spark):
    rows = [
        event(1, "x", "apple", 4, "10:00"),
        event(2, "x", "pear", 6, "10:20"),
        event(3, "y", "plum", 1, "09:30"),
    ]
    frame = spark.createDataFrame(rows, "event_id long, user string, item string, amount long,"
                                  " ts string")  # fmt: skip
    return frame.selectExpr("*", "unix_millis(to_timestamp(ts)) AS ts_ms")


@pytest.mark.slow
def test_bootstrap_sets_every_variable_and_timers_that_fire(spark, private_copy, history) -> None:
    query = private_copy("tws", "rocksdb", CATALOG)
    batch = last_batch(query.checkpoint)
    report = bootstrap_transform_with_state(
        spark, NS, tracker_class(), history, key=["user"], order_by=["ts"]
    )
    assert report.batch_id == batch + 1 and last_batch(query.checkpoint) == batch + 1

    def table(state: str) -> list[tuple]:
        return sorted(tuple(r) for r in spark.table(f"{NS}.{state}").collect())

    assert table("count") == [("x", 2), ("y", 1)]
    assert table("history") == [("x", 4), ("x", 6), ("y", 1)]
    assert table("items") == [("x", "apple", 1), ("x", "pear", 1), ("y", "plum", 1)]
    assert table("timers") == [("x", X_TIMER), ("y", 1704101400000 + 3_600_000)]

    query.add_input([event(7, "x", "apple", 2, "10:30")])  # x counts on from 2
    query.add_input([event(8, "z", "fig", 1, "12:30")])  # moves the watermark past 11:30
    query.add_input([event(9, "z", "fig", 1, "12:31")])  # x's and y's timers fire
    assert query.run(spark) == [
        {"user": "x", "count": 3},
        {"user": "z", "count": 1},
        {"user": "x", "count": -1},
        {"user": "y", "count": -1},
        {"user": "z", "count": 2},
    ]


@pytest.mark.slow
def test_bootstrap_function_in_sql_and_its_refusals(spark, private_copy, history) -> None:
    private_copy("tws", "rocksdb", CATALOG)
    history.createOrReplaceTempView("tb_history")
    spark.udtf.register(
        "tb_items",
        transform_with_state_bootstrap(tracker_class(), key=["user"], state="items"),
    )
    rows = spark.sql("SELECT * FROM tb_items(TABLE(tb_history))").collect()
    assert sorted(tuple(r) for r in rows) == [
        ("x", "apple", 1), ("x", "pear", 1), ("y", "plum", 1)
    ]  # fmt: skip
    spark.sql(f"INSERT OVERWRITE {NS}.items SELECT * FROM tb_items(TABLE(tb_history))")
    assert spark.table(f"{NS}.items").count() == 3
    with pytest.raises(ValueError, match="declares no state 'nope'"):
        transform_with_state_bootstrap(tracker_class(), key=["user"], state="nope")
    with pytest.raises(Exception, match="SAVEPOINT_BOOTSTRAP_COLUMNS"), savepoint_errors():
        spark.udtf.register(
            "tb_bad", transform_with_state_bootstrap(tracker_class(), key=["who"], state="count")
        )
        spark.sql("SELECT * FROM tb_bad(TABLE(tb_history))").collect()
