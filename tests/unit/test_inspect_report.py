"""``inspect`` output without Spark: its arguments, the terminal summary and the HTML page of a
given inspection (the numbers' truth is checked on real checkpoints in
tests/integration/test_inspect.py)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from spark_savepoint.sql_ext.cli import build_parser
from spark_savepoint.sql_ext.cli.report_html import render
from spark_savepoint.sql_ext.cli.report_text import summary
from spark_savepoint.sql_ext.inspection import BatchStats, Inspection, OperatorStats, TableStats


def _inspection() -> Inspection:
    agg = OperatorStats(
        uid="agg_0", operator_id=0, operator_name="stateStoreSave", partitions=4,
        bytes_on_disk=3 * 1024, partition_bytes=(1024, 0, 1024, 1024), versions=(1, 3),
        tables=(TableStats("sp.agg_0.default", "default", "aggregation", 4, (6, 0, 2, 2)),),
    )  # fmt: skip
    join = OperatorStats(
        uid="join_1", operator_id=1, operator_name="symmetricHashJoin", partitions=2,
        bytes_on_disk=900, partition_bytes=(450, 450), versions=(2, 3),
        tables=(
            TableStats("sp.join_1.left", "left", "join_side", 2, (0, 0)),
            TableStats("sp.join_1.<b>&x", "<b>&x", "join_side", 2, (1, 0)),
            TableStats("sp.join_1.left_keyToNumValues", "left_keyToNumValues", "join_store", 2),
        ),
    )  # fmt: skip
    batches = (
        BatchStats(0, True, "2024-01-01 10:00:00.000", {"agg_0": 100}),
        BatchStats(1, True, "2024-01-01 10:01:00.000", {"agg_0": 50, "join_1": 900}),
        BatchStats(2, True, "2024-01-01 10:02:00.000", {"agg_0": 2048}),
        BatchStats(3, False, None, {}),
    )
    return Inspection("/ckpt/<odd> & 'name'", 2, "rocksdb", "4.3", (agg, join), batches, True)


def test_arguments_and_defaults() -> None:
    args = build_parser().parse_args(["inspect", "/ckpt"])
    assert (args.path, args.batch, args.html, args.json, args.no_rows) == (
        "/ckpt", None, None, False, False)  # fmt: skip
    args = build_parser().parse_args(
        ["inspect", "/ckpt", "--batch", "3", "--html", "r.html", "--json", "--no-rows"]
    )
    assert (args.batch, args.html, args.json, args.no_rows) == (3, "r.html", True, True)


def test_summary_has_a_line_per_table_and_the_batches() -> None:
    lines = summary(_inspection()).splitlines()
    assert (
        lines[0]
        == "checkpoint '/ckpt/<odd> & 'name'' at batch 2: provider rocksdb, written by Spark 4.3"
    )
    assert lines[1] == "committed batches kept: 3 (0..2), last commit 2024-01-01 10:02:00.000"
    assert lines[2] == "state on disk: 3.9 KiB in 2 operator(s)"
    table = [line.split() for line in lines[4:9]]
    assert table[0] == ["uid", "state", "partitions", "rows", "largest", "median", "skew", "on",
                        "disk", "versions"]  # fmt: skip
    assert table[1] == ["agg_0", "default", "4", "10", "6", "2", "3.00", "3.0", "KiB", "1..3"]
    assert table[2] == ["join_1", "left", "2", "0", "0", "0", "-", "900", "B", "2..3"]  # empty
    assert table[3] == ["<b>&x", "2", "1", "1", "0.5", "2.00"]
    assert table[4] == ["left_keyToNumValues", "2", "-", "-", "-", "-"]  # not counted
    batches = [line.split() for line in lines[lines.index("state files written per batch:") + 1 :]]
    assert batches[0] == ["batch", "committed", "at", "agg_0", "join_1"]
    assert batches[2] == ["1", "2024-01-01", "10:01:00.000", "50", "B", "900", "B"]
    assert batches[4] == ["3", "not", "committed", "0", "B", "0", "B"]


def test_the_json_form_has_every_number() -> None:
    values = json.loads(json.dumps(_inspection().as_dict()))
    agg = values["operators"][0]["tables"][0]
    assert (agg["rows"], agg["largest"], agg["median"], agg["skew"]) == (10, 6, 2, 3.0)
    assert values["operators"][1]["tables"][0]["skew"] is None
    assert values["committed_batches"] == [0, 1, 2]
    assert values["batches"][1]["written"] == {"agg_0": 50, "join_1": 900}


class _Page(HTMLParser):
    """Collects the page's charts: for each <svg>, its data-table and its bars' tooltips."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[str, list[str]] = {}
        self.chart: str | None = None
        self.in_bar = False
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        values = dict(attrs)
        self.tags.add(tag)
        if tag == "svg":
            self.chart = values["data-table"]
            self.charts[self.chart] = []
        if tag == "rect" and self.chart is not None:
            self.in_bar = True
            self.charts[self.chart].append("")

    def handle_endtag(self, tag: str) -> None:
        self.in_bar = self.in_bar and tag != "rect"

    def handle_data(self, data: str) -> None:
        if self.in_bar and self.chart is not None:
            self.charts[self.chart][-1] += data


def test_the_page_is_self_contained_with_one_bar_per_partition() -> None:
    page = render(_inspection())
    assert not re.search(r"https?://|<script|<link|<iframe|<img|@import|url\(", page)
    assert "<odd>" not in page and "&lt;odd&gt; &amp; &#x27;name&#x27;" in page  # escaped
    parser = _Page()
    parser.feed(page)
    charts = parser.charts
    assert charts["sp.agg_0.default"] == [f"partition {p}: {n} rows" for p, n in
                                          enumerate((6, 0, 2, 2))]  # fmt: skip
    assert len(charts["sp.join_1.left"]) == 2 and len(charts["sp.join_1.<b>&x"]) == 2
    assert "sp.join_1.left_keyToNumValues" not in charts  # not counted: no chart
    assert "batches" in charts and "batch 1, join_1: 900 B" in charts["batches"]
    assert {"style", "svg", "rect", "title"} <= parser.tags


def test_a_page_without_rows_says_so() -> None:
    inspection = _inspection()
    bare = Inspection(
        inspection.checkpoint, 2, "hdfs", "4.3",
        tuple(OperatorStats(**{**op.__dict__, "tables": tuple(
            TableStats(t.table, t.state, t.state_kind, t.partitions) for t in op.tables)})
            for op in inspection.operators),
        inspection.batches, rows_counted=False,
    )  # fmt: skip
    page = render(bare)
    assert "Rows were not counted" in page and 'class="partitions"' not in page
    table = [line.split() for line in summary(bare).splitlines()[5:9]]
    counted = [row[3:7] if row[0] in ("agg_0", "join_1") else row[2:6] for row in table]
    assert counted == [["-", "-", "-", "-"]] * 4  # rows, largest, median, skew
