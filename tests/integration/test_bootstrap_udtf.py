"""group_state_bootstrap: the query's own state function over history gives the state the
streaming query built."""

from __future__ import annotations

import pytest

from spark_savepoint import attach, group_state_bootstrap
from tests.support.streaming_queries import EVENTS_SCHEMA, count_and_sum


def test_bootstrap_from_history_equals_streaming_state(spark, checkpoints) -> None:
    query = checkpoints[("pandas_state", "hdfs")]
    history = spark.read.schema(EVENTS_SCHEMA).json(str(query.input_dir))
    history.createOrReplaceTempView("history")
    spark.udtf.register(
        "bootstrap_counts",
        group_state_bootstrap(
            count_and_sum, key=["user"], state_schema="cnt long, total long", order_by=["ts"]
        ),
    )

    computed = spark.sql("SELECT * FROM bootstrap_counts(TABLE(history)) ORDER BY user")
    assert computed.columns == ["user", "cnt", "total"]

    attach(spark, str(query.checkpoint), "bs")
    streamed = spark.sql("SELECT user, cnt, total FROM bs.groupstate_0.default ORDER BY user")
    assert [tuple(r) for r in computed.collect()] == [tuple(r) for r in streamed.collect()]


def test_bootstrap_names_missing_key_columns(spark) -> None:
    spark.udtf.register(
        "bootstrap_bad",
        group_state_bootstrap(count_and_sum, key=["customer"], state_schema="cnt long, total long"),
    )
    spark.range(3).createOrReplaceTempView("numbers")
    with pytest.raises(Exception, match=r"SAVEPOINT_BOOTSTRAP_COLUMNS.*customer.*\['id'\]"):
        spark.sql("SELECT * FROM bootstrap_bad(TABLE(numbers))").collect()
