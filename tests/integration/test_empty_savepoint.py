"""Empty savepoints: a new folder shaped like a query's checkpoint, bootstrapped with INSERT, then
started by the real streaming query, which must continue from the bootstrapped state.

The template is the session's checkpoint of the same query (batches 0 and 1). The target's only
committed batch 0 holds empty state; the query started on it reads a fresh input folder with the
default restart wave (alice: apple 1 at 10:07 and pear 7; dave: plum 8).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from pyspark.errors import AnalysisException

from spark_savepoint import attach, create_savepoint
from spark_savepoint.catalog.bridge import CATALOG_CLASS
from spark_savepoint.catalog.errors import SavepointError
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import UIDS, StreamingQuery

CATALOG = "boot"


def empty_like(spark, checkpoints, tmp_path: Path, kind: str, provider: str) -> StreamingQuery:
    """An empty savepoint of ``kind`` in tmp_path, attached as ``boot``."""
    query = StreamingQuery(kind, provider, tmp_path / f"new-{kind}-{provider}")
    summary = create_savepoint(
        spark, str(query.checkpoint), like=str(checkpoints[(kind, provider)].checkpoint)
    )
    assert "committed batch 0 holds empty state" in summary
    attach(spark, str(query.checkpoint), CATALOG)
    return query


def state_files(folder: Path) -> list[str]:
    """Store data files (deltas, snapshots, changelogs, zips) under ``folder``/state."""
    return sorted(
        str(p.relative_to(folder))
        for p in (folder / "state").rglob("*")
        if p.is_file() and p.suffix in {".delta", ".snapshot", ".changelog", ".zip"}
    )


BOOTSTRAP = {
    ("agg", "hdfs"): (
        "INSERT INTO {t} VALUES ('alice', 100, 1000)",
        [{"user": "alice", "cnt": 102, "total": 1008}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    ("agg", "rocksdb"): (
        "INSERT OVERWRITE {t} SELECT 'alice', 100L, 1000L",
        [{"user": "alice", "cnt": 102, "total": 1008}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    ("pandas_state", "hdfs"): (
        "INSERT INTO {t} SELECT 'alice' AS user, 100 AS cnt, 1000L AS total",
        [{"user": "alice", "cnt": 102, "total": 1008}, {"user": "dave", "cnt": 1, "total": 8}],
    ),
    ("dedup", "rocksdb"): ("INSERT INTO {t} VALUES (CAST(6 AS BIGINT))", [3, 5]),
}


@pytest.mark.parametrize(("kind", "provider"), list(BOOTSTRAP))
def test_bootstrapped_empty_savepoint_starts_the_query(
    spark, checkpoints, tmp_path: Path, kind: str, provider: str
) -> None:
    query = empty_like(spark, checkpoints, tmp_path, kind, provider)
    table = f"{CATALOG}.{UIDS[kind]}.default"
    assert last_batch(query.checkpoint) == 0
    assert spark.table(table).count() == 0
    attach(spark, str(checkpoints[(kind, provider)].checkpoint), "template")
    assert spark.table(table).schema == spark.table(f"template.{UIDS[kind]}.default").schema
    statement, expected = BOOTSTRAP[(kind, provider)]
    spark.sql(statement.format(t=table))
    assert last_batch(query.checkpoint) == 1
    output = query.restart(spark)
    if kind == "dedup":
        # event 6 was bootstrapped as seen; event 3 is new here: the template's state is not copied
        assert sorted(r["event_id"] for r in output) == expected
    else:
        assert output == expected


@pytest.mark.slow
def test_transform_with_state_bootstrap(spark, checkpoints, tmp_path: Path) -> None:
    query = empty_like(spark, checkpoints, tmp_path, "tws", "rocksdb")
    metadata = (query.checkpoint / "state" / "0" / "_metadata" / "v2" / "0").read_text()
    schema_files = re.findall(r'"stateSchemaFilePaths":\["([^"]+)"', metadata)
    assert schema_files and all(
        f.startswith(f"file:{query.checkpoint}/state/0/_stateSchema/") for f in schema_files
    ), metadata  # its own, not the template's
    for name in ("count", "history", "items", "timers"):
        assert spark.table(f"{CATALOG}.tws_0.{name}").count() == 0
    spark.sql(f"INSERT INTO {CATALOG}.tws_0.count VALUES ('alice', 100), ('zed', 7)")
    spark.sql(f"INSERT INTO {CATALOG}.tws_0.history VALUES ('alice', 10)")
    assert sorted(tuple(r) for r in spark.table(f"{CATALOG}.tws_0.count").collect()) == [
        ("alice", 100),
        ("zed", 7),
    ]
    assert {r["user"]: r["count"] for r in query.restart(spark)} == {"alice": 102, "dave": 1}


def test_empty_savepoint_holds_no_template_state(spark, checkpoints, tmp_path: Path) -> None:
    template = checkpoints[("agg", "rocksdb")].checkpoint
    query = empty_like(spark, checkpoints, tmp_path, "agg", "rocksdb")
    files = state_files(query.checkpoint)
    assert files and all(Path(f).name in {"1.changelog", "1.zip", "1.delta"} for f in files)
    assert (query.checkpoint / "metadata").read_text() != (template / "metadata").read_text()
    template_last = max(int(p.name) for p in (template / "commits").iterdir() if p.name.isdigit())
    assert (query.checkpoint / "offsets" / "0").read_bytes() == (
        template / "offsets" / str(template_last)
    ).read_bytes()


def test_catalog_like_setting_creates_the_target(spark, checkpoints, tmp_path: Path) -> None:
    target = tmp_path / "declared"
    spark.conf.set("spark.sql.catalog.declared", CATALOG_CLASS)
    spark.conf.set("spark.sql.catalog.declared.path", str(target))
    spark.conf.set("spark.sql.catalog.declared.like", str(checkpoints[("agg", "hdfs")].checkpoint))
    try:
        assert [r[0] for r in spark.sql("SHOW NAMESPACES IN declared").collect()] == [
            "agg_0",
            "sources",
            "query",
        ]
        assert (target / "commits" / "0").is_file()
    finally:
        spark.conf.unset("spark.sql.catalog.declared.like")


def test_target_not_empty_is_refused(spark, checkpoints, tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    before = snapshot(target)
    with pytest.raises(SavepointError, match="SAVEPOINT_TARGET_NOT_EMPTY") as error:
        create_savepoint(spark, str(target), like=str(checkpoints[("agg", "hdfs")].checkpoint))
    assert str(target) in str(error.value)
    assert snapshot(target) == before


def test_template_that_is_not_a_checkpoint_is_refused(spark, tmp_path: Path) -> None:
    target = tmp_path / "never"
    with pytest.raises((SavepointError, AnalysisException), match="SAVEPOINT_NOT_A_CHECKPOINT"):
        create_savepoint(spark, str(target), like=str(tmp_path))
    assert not target.exists()


def test_two_creations_racing_for_one_target_leave_one_whole_savepoint(
    spark, checkpoints, tmp_path: Path
) -> None:
    """The first to create the target's metadata file claims it; the other writes and removes
    nothing, so the winner's savepoint stays whole and the query starts on it."""
    template = str(checkpoints[("agg", "hdfs")].checkpoint)
    query = StreamingQuery("agg", "hdfs", tmp_path / "raced")
    outcomes: list[object] = []

    def create() -> None:
        try:
            outcomes.append(create_savepoint(spark, str(query.checkpoint), like=template))
        except SavepointError as error:
            outcomes.append(error)

    racers = [threading.Thread(target=create) for _ in range(2)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    refused = [o for o in outcomes if isinstance(o, SavepointError)]
    assert len(outcomes) == 2 and len(refused) == 1, outcomes
    assert "SAVEPOINT_TARGET_NOT_EMPTY" in str(refused[0])
    attach(spark, str(query.checkpoint), CATALOG)
    spark.sql(f"INSERT INTO {CATALOG}.agg_0.default VALUES ('alice', 100, 1000)")
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 102, "total": 1008},
        {"user": "dave", "cnt": 1, "total": 8},
    ]
