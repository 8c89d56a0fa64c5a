"""``upgrade_check``: a changed query's stateful operators, planned without reading input,
matched with a real checkpoint's operators by kind and state schema, and the verdict."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext.upgrade import upgrade_check
from tests.support.checkpoint_files import snapshot
from tests.support.streaming_queries import EVENTS_SCHEMA, build, tracker_class


@pytest.fixture(scope="module")
def dedup_agg(spark, tmp_path_factory: pytest.TempPathFactory):
    """The ``dedup_agg`` query (``dedup_1`` feeding ``agg_0``), built once for this module."""
    return build(spark, "dedup_agg", "hdfs", tmp_path_factory.mktemp("dedup_agg"))


@pytest.fixture(scope="module")
def top_int(spark, checkpoints, tmp_path_factory: pytest.TempPathFactory):
    """A checkpoint of the largest amount per user as INT (``max`` keeps an INT buffer), over
    the ``agg`` query's input."""
    query = checkpoints[("agg", "hdfs")]
    checkpoint = tmp_path_factory.mktemp("top_int") / "checkpoint"
    run = (
        top(events(spark, query), "int").writeStream.format("noop").outputMode("update")
        .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start()
    )  # fmt: skip
    run.awaitTermination()
    return query, checkpoint


def top(frame: DataFrame, amount_type: str) -> DataFrame:
    return frame.groupBy("user").agg(F.max(F.col("amount").cast(amount_type)).alias("top"))


def events(spark, query) -> DataFrame:
    return spark.readStream.schema(EVENTS_SCHEMA).json(str(query.input_dir))


def counts(frame: DataFrame, *more, by: str = "user") -> DataFrame:
    """The ``agg`` query's aggregation (count and sum per user), with ``more`` aggregates."""
    return frame.groupBy(by).agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"), *more)


def rows(report) -> list[tuple]:
    return [(op.old, op.new, op.action) for op in report.operators]


def test_the_same_query_is_compatible(spark, checkpoints) -> None:
    query = checkpoints[("agg", "hdfs")]
    before = snapshot(query.checkpoint)
    report = upgrade_check(spark, str(query.checkpoint), counts(events(spark, query)), "update")
    assert (report.verdict, report.exit_code) == ("compatible", 0)
    assert rows(report) == [("agg_0", "agg_0", "keep")]
    assert snapshot(query.checkpoint) == before, "a check writes nothing in the checkpoint"


def test_an_added_aggregate_column_starts_from_its_initial_value(spark, checkpoints) -> None:
    query = checkpoints[("agg", "rocksdb")]
    new = counts(events(spark, query), F.max("amount").alias("top"), F.count("item").alias("n"))
    report = upgrade_check(spark, str(query.checkpoint), new, "update")
    assert (report.verdict, report.exit_code) == ("changes", 3)
    [op] = report.operators
    assert (op.old, op.new, op.action) == ("agg_0", "agg_0", "change")
    assert op.changes == [
        "value column max BIGINT added, starting as NULL",
        "value column count BIGINT added, starting as 0",
    ]
    assert "agg_0      -> agg_0      change" in report.text()
    assert "verdict: compatible with changes" in report.text()


def test_a_deduplication_in_front_starts_empty(spark, checkpoints) -> None:
    query = checkpoints[("agg", "hdfs")]
    new = counts(events(spark, query).dropDuplicates(["event_id"]))
    report = upgrade_check(spark, str(query.checkpoint), new, "update")
    assert report.verdict == "changes" and not report.drops_state
    assert rows(report) == [("agg_0", "agg_0", "keep"), (None, "dedup_1", "new")]


def test_a_removed_operator_drops_its_state(spark, dedup_agg) -> None:
    query = dedup_agg
    report = upgrade_check(spark, str(query.checkpoint), counts(events(spark, query)), "update")
    assert rows(report) == [("agg_0", "agg_0", "keep"), ("dedup_1", None, "drop")]
    assert report.verdict == "changes" and report.drops_state
    assert "--allow-drop" in report.text()


def test_a_renamed_key_keeps_each_keys_state(spark, checkpoints) -> None:
    query = checkpoints[("agg", "hdfs")]
    renamed = counts(events(spark, query).withColumnRenamed("user", "client"), by="client")
    report = upgrade_check(spark, str(query.checkpoint), renamed, "update")
    [op] = report.operators
    assert op.action == "change" and "other names" in op.changes[0], op.changes


def test_a_widened_buffer_is_compatible_and_a_narrowed_one_is_not(spark, top_int) -> None:
    query, checkpoint = top_int
    report = upgrade_check(spark, str(checkpoint), top(events(spark, query), "bigint"), "update")
    [op] = report.operators
    assert (report.verdict, op.changes) == ("changes", ["value column max INT -> BIGINT (widened)"])
    report = upgrade_check(spark, str(checkpoint), top(events(spark, query), "short"), "update")
    [op] = report.operators
    assert report.verdict == "incompatible"
    assert op.reasons == ["value column max INT -> SMALLINT: its values do not fit the new type"]


def test_a_changed_join_key_is_incompatible(spark, checkpoints) -> None:
    query = checkpoints[("join", "hdfs")]
    schema = "key string, ts timestamp, value long"

    def side(name: str) -> DataFrame:
        frame = spark.readStream.schema(schema).json(str(query.input_dir / name))
        return frame.select(
            F.length("key").alias(f"{name}_key"),  # an INT key instead of the STRING one
            F.col("ts").alias(f"{name}_ts"),
            F.col("value").alias(f"{name}_value"),
        ).withWatermark(f"{name}_ts", "10 minutes")

    joined = side("left").join(side("right"), F.expr(
        "left_key = right_key AND right_ts BETWEEN left_ts - INTERVAL 5 MINUTES"
        " AND left_ts + INTERVAL 5 MINUTES"))  # fmt: skip
    report = upgrade_check(spark, str(query.checkpoint), joined, "append")
    assert (report.verdict, report.exit_code) == ("incompatible", 4)
    [op] = report.operators
    assert (op.old, op.new, op.action) == ("join_0", "join_0", "incompatible")
    assert "the key store left-keyToNumValues changed from" in op.reasons[0], op.reasons
    assert "cannot move" in report.text()


def test_an_added_state_variable_starts_empty(spark, checkpoints) -> None:
    query = checkpoints[("tws", "rocksdb")]
    tracker = tracker_class()

    class WithLast(tracker):  # type: ignore[misc, valid-type]
        def init(self, handle) -> None:
            super().init(handle)
            self.last = handle.getValueState("last", "amount long")

    frame = (
        events(spark, query)
        .withWatermark("ts", "10 minutes")
        .withColumn("ts_ms", F.unix_millis("ts"))
    )
    new = frame.groupBy("user").transformWithStateInPandas(
        WithLast(), "user string, count long", "Update", "EventTime"
    )
    report = upgrade_check(spark, str(query.checkpoint), new, "update")
    [op] = report.operators
    assert (op.old, op.new, op.action) == ("tws_0", "tws_0", "change")
    assert op.changes == ["state variable last added (starts empty)"]
    assert report.verdict == "changes" and not report.drops_state


def test_other_sources_are_incompatible(spark, checkpoints, tmp_path) -> None:
    query = checkpoints[("agg", "hdfs")]
    more = spark.readStream.schema(EVENTS_SCHEMA).json(str(tmp_path))
    report = upgrade_check(spark, str(query.checkpoint), counts(events(spark, query).union(more)))
    assert report.verdict == "incompatible" and rows(report) == [("agg_0", "agg_0", "keep")]
    assert report.reasons[0].startswith("the new query reads 2 source(s), the checkpoint's 1")


def test_map_pairs_operators_by_hand(spark, dedup_agg) -> None:
    query = dedup_agg
    new = counts(events(spark, query).dropDuplicates(["event_id"]))
    report = upgrade_check(spark, str(query.checkpoint), new, "update", ["dedup_1=1"])
    assert rows(report) == [("agg_0", "agg_0", "keep"), ("dedup_1", "dedup_1", "keep")]
    with pytest.raises(BadArguments, match="has no operator 'agg_7'"):
        upgrade_check(spark, str(query.checkpoint), new, "update", ["agg_7=0"])


NEW_QUERY = """
from pyspark.sql import functions as F


def build(spark):
    events = spark.readStream.schema("{schema}").json("{input}")
    return events.groupBy("user").agg(
        F.count("*").alias("cnt"), F.sum("amount").alias("total"), F.max("amount").alias("top")
    )
"""


def test_cli_prints_the_report_and_exits_with_the_verdict(spark, checkpoints, tmp_path, capsys):
    from spark_savepoint.sql_ext.cli import main

    query = checkpoints[("agg", "hdfs")]
    module = tmp_path / "new_query.py"
    module.write_text(NEW_QUERY.format(schema=EVENTS_SCHEMA, input=query.input_dir))
    args = ["upgrade", "check", str(query.checkpoint), "--query", f"{module}:build"]
    assert main([*args, "--output-mode", "update"]) == 3
    out = capsys.readouterr().out
    assert "agg_0      -> agg_0" in out and "max BIGINT added, starting as NULL" in out
    assert main([*args, "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["verdict"] == "changes"
    assert main(["upgrade", "check", str(query.checkpoint), "--query", "nosuchmodule:f"]) == 1
    assert "[SAVEPOINT_BAD_ARGUMENTS] --query nosuchmodule:f" in capsys.readouterr().err
