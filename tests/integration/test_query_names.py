"""``attach(..., query=df)``: aggregation value columns named as the query names its results
(``cnt``, ``total``) instead of Spark's buffer names (``count``, ``sum``), for reads and writes;
the restarted query continues from what was written under those names."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from spark_savepoint import attach, last_edit
from tests.support.streaming_queries import EVENTS_SCHEMA

pytestmark = pytest.mark.slow  # a query of its own, restarted


def test_reads_and_writes_use_the_querys_names(spark, private_copy) -> None:
    query = private_copy("agg", "hdfs")
    query.input_dir.mkdir(parents=True, exist_ok=True)
    events = spark.readStream.schema(EVENTS_SCHEMA).json(str(query.input_dir))
    df = events.groupBy("user").agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"))
    attach(spark, str(query.checkpoint), "named", query=df, output_mode="update")
    table = spark.table("named.agg_0.default")
    assert table.columns == ["user", "cnt", "total"]
    assert {r.user: (r.cnt, r.total) for r in table.collect()}["alice"] == (2, 17)

    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        spark.sql("INSERT INTO named.agg_0.default (user, cnt, total) VALUES ('dave', 10, 100)")
    finally:
        spark.conf.unset("spark.savepoint.write.force")
    assert last_edit(spark).written == 1
    emitted = query.restart(spark)
    assert {r["user"]: (r["cnt"], r["total"]) for r in emitted} == {
        "alice": (4, 25),
        "dave": (11, 108),
    }

    attach(spark, str(query.checkpoint), "plain")
    assert spark.table("plain.agg_0.default").columns == ["user", "count", "sum"]


def test_a_function_with_several_buffers_names_each(spark, checkpoints) -> None:
    query = checkpoints[("agg", "hdfs")]
    events = spark.readStream.schema(EVENTS_SCHEMA).json(str(query.input_dir))
    df = events.groupBy("user").agg(F.count("*").alias("cnt"), F.avg("amount").alias("mean"))
    # the checkpoint's query has count and sum: the names follow the new query's buffers in
    # order, so only a query that writes this checkpoint gives meaningful names
    attach(spark, str(query.checkpoint), "avg", query=df, output_mode="update")
    assert spark.table("avg.agg_0.default").columns == ["user", "cnt", "mean_sum"]
