"""Apache Superset on the Thrift server, as docs/bi-tools.md tells a user to set it up: a
database of ``savepoint://`` URL (password login), the dataset picker, a dataset of a state
table, a bar chart of it, and a screenshot of that chart in headless Chromium.

``SPARK_SAVEPOINT_SCREENSHOTS=docs/images pytest tests/system/test_superset.py`` also saves the
screenshot there (docs/images/superset-chart.png is one).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from spark_savepoint import attach
from tests.support.superset_app import CHROMEDRIVER, CHROMIUM, Superset, superset_python
from tests.support.thrift_server import Server

pytestmark = pytest.mark.slow

COUNT = {"expressionType": "SIMPLE", "column": {"column_name": "count"}, "aggregate": "SUM",
         "label": "count"}  # fmt: skip


@pytest.fixture(scope="module")
def superset(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Superset]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()) and not os.environ.get("CI"):
        pytest.skip("apt-get install chromium chromium-driver (CI installs them)")
    app = Superset(superset_python(), tmp_path_factory.mktemp("superset"))
    yield app
    app.stop()


@pytest.fixture(scope="module")
def database(superset: Superset, server: Server) -> int:
    """The Thrift server added as a Superset database, as a user does in its form."""
    body = {"database_name": "streaming state", "sqlalchemy_uri": server.sqlalchemy_url(),
            "expose_in_sqllab": True}  # fmt: skip
    created = superset.post("/api/v1/database/", body)
    assert created["result"]["driver"] == "pyhive"
    return created["id"]


def test_the_dataset_picker_offers_the_state_views(superset: Superset, database: int) -> None:
    schemas = superset.get(f"/api/v1/database/{database}/schemas/")["result"]
    assert {"savepoint_agg_0", "savepoint_metadata", "join_join_0"} <= set(schemas)
    tables = superset.get(f"/api/v1/database/{database}/tables/", q="(schema_name:savepoint_agg_0)")
    assert tables["result"] == [{"type": "view", "value": "default"}]


def test_a_chart_of_state(superset: Superset, database: int, spark, checkpoints,
                          tmp_path: Path) -> None:  # fmt: skip
    """A dataset of ``savepoint_agg_0.default``, its columns typed; a bar chart of the count per
    user whose data equal the catalog's; the chart rendered in the browser."""
    table = {"database": database, "schema": "savepoint_agg_0", "table_name": "default"}
    dataset = superset.post("/api/v1/dataset/", table)["id"]
    columns = superset.get(f"/api/v1/dataset/{dataset}")["result"]["columns"]
    assert [(c["column_name"], c["type"], c["is_dttm"]) for c in columns] == [
        ("window_start", "TIMESTAMP", True), ("window_end", "TIMESTAMP", True),
        ("user", "STRING", False), ("count", "BIGINT", False), ("partition_id", "INT", False),
    ]  # fmt: skip

    params = {"datasource": f"{dataset}__table", "viz_type": "echarts_timeseries_bar",
              "x_axis": "user", "metrics": [COUNT], "groupby": [], "adhoc_filters": [],
              "row_limit": 100, "orientation": "vertical", "y_axis_title": "count",
              "show_legend": False, "show_value": True}  # fmt: skip
    query = {"datasource": {"id": dataset, "type": "table"}, "force": True, "form_data": params,
             "queries": [{"columns": ["user"], "metrics": [COUNT], "row_limit": 100,
                          "orderby": [[COUNT, False]], "filters": []}],
             "result_format": "json", "result_type": "full"}  # fmt: skip
    [result] = superset.post("/api/v1/chart/data", query, expect=200)["result"]
    attach(spark, str(checkpoints[("window_agg", "hdfs")].checkpoint), "superset_window")
    expected = spark.sql("SELECT user, sum(count) AS count FROM superset_window.agg_0.default "
                         "GROUP BY user").collect()  # fmt: skip
    assert sorted((r["user"], r["count"]) for r in result["data"]) == sorted(map(tuple, expected))
    assert "`savepoint_agg_0`.`default`" in result["query"], "Spark's quoting, not ANSI's"

    chart = superset.post("/api/v1/chart/", {
        "slice_name": "Count per user in the streaming state", "viz_type": params["viz_type"],
        "datasource_id": dataset, "datasource_type": "table", "params": json.dumps(params),
        "query_context": json.dumps(query)})["id"]  # fmt: skip
    picture = tmp_path / "superset-chart.png"
    title = superset.screenshot(f"/explore/?slice_id={chart}", picture,
                                ".chart-container canvas")  # fmt: skip
    assert title == "Count per user in the streaming state"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and picture.stat().st_size > 20_000
    if os.environ.get("SPARK_SAVEPOINT_SCREENSHOTS"):
        shutil.copy(picture, Path(os.environ["SPARK_SAVEPOINT_SCREENSHOTS"]) / picture.name)
