"""Aggregation value columns named as the query names its results (``cnt``, ``total``) instead
of Spark's buffer names (``count``, ``sum``), for reads and writes: given with
``attach(..., query=df)``, or recorded in the checkpoint by the query itself when it ran with
spark-savepoint's settings (``_savepoint/value-names.json``); the restarted query continues from
what was written under those names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from spark_savepoint import (
    attach,
    create_savepoint,
    last_edit,
    restore_savepoint,
    take_savepoint,
)
from tests.support.streaming_queries import EVENTS_SCHEMA, build

NAMES_FILE = Path("_savepoint", "value-names.json")
RECORDED = {"0": {"buffers": ["count", "sum"], "names": ["cnt", "total"]}}
"""What the ``agg`` query (``count(*) AS cnt, sum(amount) AS total`` per user) records."""


def write_names(checkpoint: Path, recorded: dict) -> None:
    """Replace the recorded names by hand (and Hadoop's checksum of the file Spark wrote)."""
    (checkpoint / NAMES_FILE).write_text(json.dumps(recorded))
    (checkpoint / NAMES_FILE).with_name(".value-names.json.crc").unlink()


def columns(spark, table: str) -> list[str]:
    return spark.table(table).columns


def value_schema(spark, catalog: str) -> str:
    """``value_schema`` of ``agg_0.default`` in the catalog's metadata table."""
    row = spark.sql(
        f"SELECT value_schema FROM {catalog}.metadata WHERE table_name LIKE '%agg_0.default'"
    )
    return row.first().value_schema


def edit(spark, statement: str) -> None:
    """Run a one-entry edit of a private copy (forced: a copy's file times are new)."""
    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        spark.sql(statement)
    finally:
        spark.conf.unset("spark.savepoint.write.force")
    assert last_edit(spark).written == 1


def totals(emitted: list[dict]) -> dict[str, tuple[int, int]]:
    """The ``agg`` query's output rows: user -> (cnt, total)."""
    return {r["user"]: (r["cnt"], r["total"]) for r in emitted}


def events(spark, query):
    query.input_dir.mkdir(parents=True, exist_ok=True)
    return spark.readStream.schema(EVENTS_SCHEMA).json(str(query.input_dir))


@pytest.mark.slow  # a query of its own, restarted
def test_reads_and_writes_use_the_querys_names(spark, private_copy) -> None:
    query = private_copy("agg", "hdfs")
    shutil.rmtree(query.checkpoint / "_savepoint")  # only the query given names the columns
    df = events(spark, query).groupBy("user").agg(F.count("*").alias("n"), F.sum("amount"))
    attach(spark, str(query.checkpoint), "named", query=df, output_mode="update")
    table = spark.table("named.agg_0.default")
    assert table.columns == ["user", "n", "sum"]  # sum(amount): not named
    assert {r.user: (r.n, r["sum"]) for r in table.collect()}["alice"] == (2, 17)

    edit(spark, "INSERT INTO named.agg_0.default (user, n, sum) VALUES ('dave', 10, 100)")
    assert totals(query.restart(spark)) == {"alice": (4, 25), "dave": (11, 108)}
    # the restart recorded the names of the query that ran
    assert json.loads((query.checkpoint / NAMES_FILE).read_text()) == RECORDED


def test_a_function_with_several_buffers_names_each(spark, checkpoints) -> None:
    query = checkpoints[("agg", "hdfs")]
    df = events(spark, query).groupBy("user").agg(F.count("*").alias("cnt"), F.avg("amount"))
    # the checkpoint's query has count and sum: the names follow the new query's buffers in
    # order, so only a query that writes this checkpoint gives meaningful names
    attach(spark, str(query.checkpoint), "avg", query=df, output_mode="update")
    assert columns(spark, "avg.agg_0.default") == ["user", "cnt", "sum"]
    df = events(spark, query).groupBy("user").agg(F.avg("amount").alias("mean"))
    attach(spark, str(query.checkpoint), "avg", query=df, output_mode="update")
    assert columns(spark, "avg.agg_0.default") == ["user", "mean_sum", "mean_count"]


@pytest.mark.slow  # a query restarted
def test_a_query_run_with_the_tools_settings_records_its_names(spark, private_copy) -> None:
    """The fixture queries ran in a session of ``spark_savepoint.session()``: its listener
    recorded their names, which a fresh catalog uses for reads and writes."""
    query = private_copy("agg", "rocksdb")
    recorded = query.checkpoint / NAMES_FILE
    assert json.loads(recorded.read_text()) == RECORDED
    attach(spark, str(query.checkpoint), "rec")
    assert columns(spark, "rec.agg_0.default") == ["user", "cnt", "total"]
    edit(spark, "UPDATE rec.agg_0.default SET cnt = 100, total = total * 10 WHERE user = 'alice'")
    before = recorded.stat().st_mtime_ns
    assert totals(query.restart(spark)) == {"alice": (102, 178), "dave": (1, 8)}
    assert recorded.stat().st_mtime_ns == before, "the same names: the file is not rewritten"


@pytest.mark.slow  # a query of its own
def test_a_query_of_another_session_records_its_aggregations(spark, tmp_path: Path) -> None:
    """``dedup_agg`` (``dedup_1`` feeding ``agg_0``) run in a second session of the driver: the
    listener finds the query of the session that started it; only aggregations are recorded."""
    query = build(spark.newSession(), "dedup_agg", "hdfs", tmp_path / "query")
    assert json.loads((query.checkpoint / NAMES_FILE).read_text()) == RECORDED
    attach(spark, str(query.checkpoint), "other")
    assert columns(spark, "other.agg_0.default") == ["user", "cnt", "total"]
    assert columns(spark, "other.dedup_1.default") == ["event_id"]


@pytest.mark.parametrize(
    ("recorded", "why"),
    [
        ({"0": {"buffers": ["count", "max"], "names": ["cnt", "top"]}}, "other buffers"),
        ({"0": {"buffers": ["count"], "names": ["cnt"]}}, "fewer buffers"),
        ({**RECORDED, "1": {"buffers": ["count"], "names": ["n"]}}, "an operator it lacks"),
        ({"1": RECORDED["0"]}, "another operator id"),
    ],
)
def test_names_that_do_not_fit_the_checkpoint_are_ignored(
    spark, private_copy, recorded: dict, why: str
) -> None:
    """Names recorded by another version of the query keep Spark's names."""
    query = private_copy("agg", "hdfs")
    write_names(query.checkpoint, recorded)
    attach(spark, str(query.checkpoint), "stale")
    assert columns(spark, "stale.agg_0.default") == ["user", "count", "sum"], why


def test_a_query_given_wins_over_the_recorded_names(spark, checkpoints) -> None:
    query = checkpoints[("agg", "hdfs")]
    assert json.loads((query.checkpoint / NAMES_FILE).read_text()) == RECORDED
    df = events(spark, query).groupBy("user").agg(F.count("*").alias("n"), F.sum("amount"))
    attach(spark, str(query.checkpoint), "given", query=df, output_mode="update")
    assert columns(spark, "given.agg_0.default") == ["user", "n", "sum"]
    assert value_schema(spark, "given") == "n BIGINT,sum BIGINT"  # the metadata table agrees
    attach(spark, str(query.checkpoint), "given")
    assert columns(spark, "given.agg_0.default") == ["user", "cnt", "total"]
    assert value_schema(spark, "given") == "cnt BIGINT,total BIGINT"


@pytest.mark.slow  # a query of its own, restarted
def test_a_failure_to_record_never_reaches_the_query(spark, tmp_path: Path) -> None:
    query = build(spark, "agg", "hdfs", tmp_path / "query")
    folder = query.checkpoint / "_savepoint"
    shutil.rmtree(folder)
    folder.write_text("a file where the folder would be")
    assert totals(query.restart(spark)) == {"alice": (4, 25), "dave": (1, 8)}
    assert folder.read_text() == "a file where the folder would be"


def test_savepoints_keep_the_names_by_the_operators_new_ids(spark, checkpoints, tmp_path) -> None:
    """A savepoint, its restore (operator ``agg_0`` moved to id 3 here) and an empty savepoint
    like the checkpoint read with the names the query recorded."""
    source = str(checkpoints[("agg", "hdfs")].checkpoint)
    take_savepoint(spark, source, str(tmp_path / "sp"))
    restore_savepoint(spark, str(tmp_path / "sp"), str(tmp_path / "restored"), uids={"0": "3"})
    create_savepoint(spark, str(tmp_path / "empty"), like=source)
    named = ["user", "cnt", "total"]
    for folder, uid in (("sp", "agg_0"), ("restored", "agg_3"), ("empty", "agg_0")):
        attach(spark, str(tmp_path / folder), "copied")
        assert columns(spark, f"copied.{uid}.default") == named, folder
    assert json.loads((tmp_path / "restored" / NAMES_FILE).read_text()) == {"3": RECORDED["0"]}
