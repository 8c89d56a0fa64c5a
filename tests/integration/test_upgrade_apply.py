"""``upgrade_apply``: a real old query changed in several ways, its checkpoint upgraded into a
new one, and the *new* query restarted there: it continues from the old state, reads none of
the old input again, and the old checkpoint stays as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_savepoint import attach, restore_savepoint, upgrade_apply
from spark_savepoint.catalog.errors import UpgradeRefused
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import (
    EVENTS_SCHEMA,
    RUN_CONFS,
    StreamingQuery,
    build,
    query_for,
    restart_rows,
    session_confs,
    tracker_class,
)

pytestmark = pytest.mark.slow  # real queries of their own, restarted


def events(spark, query: StreamingQuery) -> DataFrame:
    return (
        spark.readStream.schema(EVENTS_SCHEMA).option("maxFilesPerTrigger", 1)
        .json(str(query.input_dir))
    )  # fmt: skip


def counts(frame: DataFrame, *more) -> DataFrame:
    return frame.groupBy("user").agg(
        F.count("*").alias("cnt"), F.sum("amount").alias("total"), *more
    )


def run_new(spark, new: DataFrame, checkpoint: Path) -> list[dict]:
    """Run ``new`` on ``checkpoint`` until it has read everything; the rows it emitted."""
    emitted: list[dict] = []

    def collect(batch: DataFrame, _: int) -> None:
        emitted.extend(row.asDict() for row in batch.collect())

    with session_confs(spark, RUN_CONFS):
        run = (
            new.writeStream.outputMode("update").foreachBatch(collect)
            .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start()
        )  # fmt: skip
        run.awaitTermination()
    return sorted(emitted, key=lambda r: r["user"])


@pytest.fixture()
def old(spark, tmp_path: Path):
    """``old(kind, provider)``: the kind's query built in this test's folder; the restart wave
    is already in its input (the upgraded query reads it, and only it)."""

    def make(kind: str, provider: str) -> StreamingQuery:
        query = build(spark, kind, provider, tmp_path / kind)
        query.add_input(restart_rows(kind))
        return query

    return make


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_an_added_aggregate_column_starts_at_null(spark, old, tmp_path, provider) -> None:
    query = old("agg", provider)
    before = snapshot(query.checkpoint)
    new = counts(events(spark, query), F.max("amount").alias("top"))
    target = tmp_path / "upgraded"
    summary = upgrade_apply(spark, str(query.checkpoint), str(target), new, "update")
    assert "1 operator(s) kept" not in summary and "1 changed" in summary
    assert snapshot(query.checkpoint) == before, "the old checkpoint is not touched"
    attach(spark, str(target), "up")
    state = {r.user: tuple(r)[1:4] for r in spark.table("up.agg_0.default").collect()}
    assert state == {"alice": (2, 17, None), "bob": (2, 10, None), "carol": (1, 3, None)}

    emitted = run_new(spark, new, target)
    assert emitted == [
        {"user": "alice", "cnt": 4, "total": 25, "top": 7},  # counts go on; max from now on
        {"user": "dave", "cnt": 1, "total": 8, "top": 8},
    ]
    assert last_batch(target) == 2, "one batch: the restart wave only, no old input again"


def test_a_widened_buffer_keeps_its_values(spark, old, tmp_path) -> None:
    query = old("agg", "rocksdb")
    int_top = tmp_path / "int_top"

    def top(amount_type: str) -> DataFrame:
        amount = F.col("amount").cast(amount_type)
        return events(spark, query).groupBy("user").agg(F.max(amount).alias("top"))

    top_int = top("int")
    run_new(spark, top_int, int_top)  # the old query: max of an INT column, from the start
    target = tmp_path / "upgraded"
    upgrade_apply(spark, str(int_top), str(target), top("bigint"), "update")
    attach(spark, str(target), "up")
    schema = spark.table("up.agg_0.default").schema
    assert schema["max"].dataType.simpleString() == "bigint"
    state = {r.user: r["max"] for r in spark.table("up.agg_0.default").collect()}
    assert state == {"alice": 10, "bob": 5, "carol": 3, "dave": 8}
    query.add_input([
        {"event_id": 7, "user": "bob", "item": "fig", "amount": 4, "ts": "2024-01-01 10:09:00"},
        {"event_id": 8, "user": "alice", "item": "fig", "amount": 12,
         "ts": "2024-01-01 10:09:00"},
    ])  # fmt: skip
    assert run_new(spark, top("bigint"), target) == [
        {"user": "alice", "top": 12},
        {"user": "bob", "top": 5},  # the old maximum, kept through the widening
    ]


def test_an_added_state_variable_starts_empty(spark, old, tmp_path) -> None:
    query = old("tws", "rocksdb")
    tracker = tracker_class()

    class WithLast(tracker):  # type: ignore[misc, valid-type]
        def init(self, handle) -> None:
            super().init(handle)
            self.last = handle.getValueState("last", "amount long")

        def handleInputRows(self, key, rows, timerValues):  # noqa: N802, N803
            frames = list(rows)
            self.last.update((int(frames[-1]["amount"].iloc[-1]),))
            yield from super().handleInputRows(key, iter(frames), timerValues)

    frame = events(spark, query).withWatermark("ts", "10 minutes")
    new = (
        frame.withColumn("ts_ms", F.unix_millis("ts"))
        .groupBy("user")
        .transformWithStateInPandas(WithLast(), "user string, count long", "Update", "EventTime")
    )
    target = tmp_path / "upgraded"
    assert "1 changed" in upgrade_apply(spark, str(query.checkpoint), str(target), new, "update")
    attach(spark, str(target), "up")
    assert spark.table("up.tws_0.last").count() == 0, "the new variable starts empty"
    assert run_new(spark, new, target) == [
        {"user": "alice", "count": 4},  # the old count goes on
        {"user": "dave", "count": 1},
    ]
    last = {r[0]: r[1] for r in spark.table("up.tws_0.last").collect()}
    assert set(last) == {"alice", "dave"}
    assert spark.table("up.tws_0.history").count() == 5 + 3, "the old amounts, then the new"


def test_a_deduplication_in_front_starts_empty(spark, old, tmp_path) -> None:
    query = old("agg", "hdfs")
    new = counts(events(spark, query).dropDuplicates(["event_id"]))
    target = tmp_path / "upgraded"
    assert "1 new" in upgrade_apply(spark, str(query.checkpoint), str(target), new, "update")
    emitted = run_new(spark, new, target)
    # e3 was seen before the dedup existed: its state starts empty, so it counts once more
    assert emitted == [
        {"user": "alice", "cnt": 4, "total": 25},
        {"user": "dave", "cnt": 1, "total": 8},
    ]
    attach(spark, str(target), "up")
    assert spark.table("up.dedup_1.default").count() == 3, "the restart wave's event ids"


def test_a_removed_operator_needs_allow_drop(spark, old, tmp_path) -> None:
    query = old("dedup_agg", "hdfs")
    new = counts(events(spark, query))
    target = tmp_path / "upgraded"
    with pytest.raises(UpgradeRefused, match=r"drops state \(dedup_1\); pass --allow-drop"):
        upgrade_apply(spark, str(query.checkpoint), str(target), new, "update")
    assert not target.exists()
    upgrade_apply(spark, str(query.checkpoint), str(target), new, "update", allow_drop=True)
    assert sorted(p.name for p in (target / "state").iterdir()) == ["0"]
    emitted = run_new(spark, new, target)
    # without the dedup, the retransmitted e3 counts again: alice 2 17 -> 4 25
    assert emitted == [
        {"user": "alice", "cnt": 4, "total": 25},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


def test_state_moves_to_the_operator_id_it_gets_in_the_new_query(spark, old, tmp_path) -> None:
    """dedup_1 feeding agg_0, upgraded to the deduplication alone: its state moves to
    operator 0 (the aggregation's state is dropped), and keeps dropping known event ids."""
    query = old("dedup_agg", "hdfs")
    named = tmp_path / "named"  # the checkpoint with a user uid for the deduplication
    restore_savepoint(spark, str(query.checkpoint), str(named), uids={"dedup_1": "events_seen"})
    new = events(spark, query).dropDuplicates(["event_id"])
    target = tmp_path / "upgraded"
    upgrade_apply(spark, str(named), str(target), new, "update", allow_drop=True)
    attach(spark, str(target), "up")
    assert spark.table("up.dedup_0.default").count() == 4, "e1, e2, e3 and e4, moved"
    assert spark.table("up.events_seen.default").count() == 4, "its user uid moved with it"
    emitted = run_new(spark, new, target)
    assert sorted(r["event_id"] for r in emitted) == [5, 6], "e3 is known: dropped again"


def test_an_incompatible_upgrade_writes_nothing(spark, old, tmp_path) -> None:
    query = old("agg", "hdfs")
    new = events(spark, query).groupBy("user").agg(F.max("event_id").cast("int").alias("n"))
    rekeyed = counts(events(spark, query).withColumn("user", F.length("user")))
    target = tmp_path / "upgraded"
    with pytest.raises(UpgradeRefused, match="incompatible .*the key changed from"):
        upgrade_apply(spark, str(query.checkpoint), str(target), rekeyed, "update")
    assert not target.exists()
    with pytest.raises(UpgradeRefused, match="drops state"):
        upgrade_apply(spark, str(query.checkpoint), str(target), new, "update")
    assert not target.exists()


NEW_QUERY = """
from pyspark.sql import functions as F


def build(spark):
    events = spark.readStream.schema("{schema}").json("{input}")
    return events.groupBy("user").agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"),
                                      F.max("amount").alias("top"))
"""


def test_cli_applies_and_refuses_in_one_line(spark, old, tmp_path, capsys) -> None:
    from spark_savepoint.sql_ext.cli import main

    query = old("dedup_agg", "hdfs")
    module = tmp_path / "v2.py"
    module.write_text(NEW_QUERY.format(schema=EVENTS_SCHEMA, input=query.input_dir))
    target = tmp_path / "upgraded"
    args = ["upgrade", "apply", str(query.checkpoint), str(target), "--query", f"{module}:build",
            "--output-mode", "update"]  # fmt: skip
    assert main(args) == 1
    assert "[SAVEPOINT_UPGRADE_REFUSED]" in capsys.readouterr().err and not target.exists()
    assert main([*args, "--allow-drop"]) == 0
    assert "1 changed, 0 new, 1 dropped" in capsys.readouterr().out
    assert last_batch(target) == 1


@pytest.mark.parametrize("kind", ["pandas_state", "join"])
def test_an_unchanged_query_continues_as_from_its_own_checkpoint(spark, old, tmp_path, kind):
    """Every operator kept: the upgraded checkpoint, put in the old one's place, gives the
    restarted query exactly the output the old checkpoint gives it."""
    query = old(kind, "hdfs")
    control = tmp_path / "control"
    shutil.copytree(query.checkpoint, control)
    target = tmp_path / "upgraded"
    new = query_for(kind)(spark, query.input_dir)
    mode = "append" if kind == "join" else "update"
    summary = upgrade_apply(spark, str(query.checkpoint), str(target), new, mode)
    assert "operator(s) kept, 0 changed, 0 new, 0 dropped" in summary
    shutil.rmtree(query.checkpoint)
    shutil.move(target, query.checkpoint)
    upgraded = query.run(spark)
    shutil.rmtree(query.checkpoint)
    shutil.move(control, query.checkpoint)
    assert upgraded == query.run(spark) != []
