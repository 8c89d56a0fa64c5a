"""An empty savepoint shaped like a checkpoint in format v2 (state checkpoint ids in the commit
log), bootstrapped with INSERT and started by the real query of this project's Spark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spark_savepoint import attach, create_savepoint
from tests.compat.golden import goldens
from tests.support.streaming_queries import StreamingQuery, session_confs

pytestmark = pytest.mark.slow  # restarts a format-2 query (about 12 s)

FORMAT_VERSION = "spark.sql.streaming.stateStore.checkpointFormatVersion"


def test_format_v2_template_gives_a_format_v2_savepoint_the_query_continues(
    spark, tmp_path: Path
) -> None:
    template = next(g for g in goldens("4.3.0") if g.case == "agg-rocksdb_v2")
    query = StreamingQuery("agg", "rocksdb", tmp_path / "new")
    create_savepoint(spark, str(query.checkpoint), like=str(template.folder / "checkpoint"))
    commit = (query.checkpoint / "commits" / "0").read_text().splitlines()
    ids = json.loads(commit[1])["stateUniqueIds"]["0"]
    assert commit[0] == "v2" and len(ids) == 4 and all(len(p) == 1 and p[0] for p in ids)
    attach(spark, str(query.checkpoint), "boot_v2")
    spark.sql("INSERT INTO boot_v2.agg_0.default VALUES ('alice', 100, 1000)")
    with session_confs(spark, {FORMAT_VERSION: "2"}):  # the query's own setting
        out = query.restart(spark)
    assert out == [
        {"user": "alice", "cnt": 102, "total": 1008},
        {"user": "dave", "cnt": 1, "total": 8},
    ]
