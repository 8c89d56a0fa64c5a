"""The BI path over the real Thrift server: SQLAlchemy's inspector and pandas through the
project's ``savepoint://`` dialect (PyHive underneath), as docs/bi-tools.md tells users."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine

from spark_savepoint import attach
from spark_savepoint.sql_ext.servers.views import select_sql, state_schema
from tests.support.thrift_server import Server

pytestmark = pytest.mark.slow

WINDOW_COLUMNS = ["window_start", "window_end", "user", "count", "partition_id"]


@pytest.fixture(scope="module")
def engine(server: Server) -> Iterator[Engine]:
    engine = create_engine(server.sqlalchemy_url())
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def state_rows(spark, checkpoints) -> list[tuple]:
    """The window aggregation's flat rows, read by the catalog in this process."""
    attach(spark, str(checkpoints[("window_agg", "hdfs")].checkpoint), "bi_window")
    table = "bi_window.agg_0.default"
    rows = spark.sql(select_sql(table, state_schema(spark, table))).collect()
    return sorted((str(a), str(b), user, count, pid) for a, b, user, count, pid in rows)


def _rows(frame: pd.DataFrame) -> list[tuple]:
    return sorted((str(a), str(b), u, int(c), int(p)) for a, b, u, c, p in frame.itertuples(False))


def test_the_inspector_lists_schemas_views_and_typed_columns(engine: Engine) -> None:
    inspector = inspect(engine)
    assert {"savepoint_metadata", "savepoint_agg_0", "join_join_0"} <= set(
        inspector.get_schema_names()
    )
    assert inspector.get_view_names("savepoint_agg_0") == ["default"]
    assert inspector.get_table_names("savepoint_agg_0") == [], "views are not tables"
    assert sorted(inspector.get_view_names("join_join_0")) == [
        "left", "left_keytonumvalues", "left_keywithindextovalue",
        "right", "right_keytonumvalues", "right_keywithindextovalue",
    ]  # fmt: skip
    columns = inspector.get_columns("default", schema="savepoint_agg_0")
    assert [(c["name"], type(c["type"]).__name__) for c in columns] == [
        ("window_start", "HiveTimestamp"),
        ("window_end", "HiveTimestamp"),
        ("user", "String"),
        ("count", "BigInteger"),
        ("partition_id", "Integer"),
    ]
    assert inspector.has_table("default", schema="savepoint_agg_0")
    assert not inspector.has_table("nothing", schema="savepoint_agg_0")
    assert not inspector.has_table("SELECT * FROM savepoint_agg_0.default")


@pytest.mark.parametrize("as_text", [False, True], ids=["string", "text"])
def test_pandas_read_sql_runs_a_query(engine: Engine, state_rows, as_text: bool) -> None:
    """pandas asks the dialect whether the SQL is a table name first: it is not."""
    sql = "SELECT * FROM savepoint_agg_0.default"
    frame = pd.read_sql(text(sql) if as_text else sql, engine)
    assert list(frame.columns) == WINDOW_COLUMNS
    assert _rows(frame) == state_rows


def test_pandas_reads_a_view_as_a_table(engine: Engine, state_rows) -> None:
    """``read_sql_table`` reflects the view (its columns typed), then selects it."""
    frame = pd.read_sql_table("default", engine, schema="savepoint_agg_0")
    assert list(frame.columns) == WINDOW_COLUMNS
    assert _rows(frame) == state_rows
    assert pd.api.types.is_datetime64_any_dtype(frame["window_start"]), frame.dtypes


def test_a_missing_table_is_named(engine: Engine) -> None:
    with pytest.raises(ValueError, match="Table nothing not found"):
        pd.read_sql_table("nothing", engine, schema="savepoint_agg_0")
