"""State that a query placed by its input's partitioning, not by all key columns (every query
started before Spark 3.3; SPARK-38204): ``repartition("user").groupBy("user", "item")`` keeps
the state of (user, item) in partition ``pmod(hash(user), n)``. Lookups find every key; a write
knows the placing columns (recorded by the query when it ran with spark-savepoint's listener, or
named: ``partitioned_by``), checks them against every stored key, or is refused;
every edit keeps each key where the restarted query looks for it, which each case proves by
restarting the query on input that touches every key: a key lost, left twice or put where the
query does not look would show in its output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from spark_savepoint import (
    attach,
    restore_savepoint,
    savepoint_errors,
    take_savepoint,
    upgrade_apply,
    upgrade_check,
)
from spark_savepoint.catalog.errors import (
    BadArguments,
    RestoreUnsupported,
    SavepointError,
    UpgradeRefused,
)
from tests.support.checkpoint_files import snapshot
from tests.support.streaming_queries import (
    EVENTS_SCHEMA,
    NON_STRICT_CONFS,
    StreamingQuery,
    build,
    repartitioned_agg_query,
)

CATALOG = "ns"
TABLE = f"{CATALOG}.agg_0.default"
PARTITIONS = 4
STORED = {
    ("alice", "apple"): (1, 10),
    ("alice", "pear"): (1, 7),
    ("bob", "pear"): (2, 10),
    ("carol", "apple"): (1, 3),
}
"""The state the default input leaves: (user, item) -> (cnt, total)."""

EDITS = {
    "insert_new": (
        "INSERT INTO {t} VALUES ('erin', 'fig', 10L, 100L)",
        {**STORED, ("erin", "fig"): (10, 100)},
    ),
    "insert_existing": (
        "INSERT INTO {t} VALUES ('alice', 'pear', 5L, 50L)",
        {**STORED, ("alice", "pear"): (5, 50)},
    ),
    "update": (
        "UPDATE {t} SET cnt = cnt + 10 WHERE user = 'alice'",
        {**STORED, ("alice", "apple"): (11, 10), ("alice", "pear"): (11, 7)},
    ),
    "delete": (
        "DELETE FROM {t} WHERE item = 'pear'",
        {k: v for k, v in STORED.items() if k[1] != "pear"},
    ),
    "merge": (
        "MERGE INTO {t} AS t USING (SELECT 'alice' AS u, 'pear' AS i UNION ALL"
        " SELECT 'erin', 'fig') AS c ON t.user = c.u AND t.item = c.i"
        " WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (user, item, cnt, total)"
        " VALUES (c.u, c.i, 10, 100)",
        {**{k: v for k, v in STORED.items() if k != ("alice", "pear")}, ("erin", "fig"): (10, 100)},
    ),
    "insert_overwrite": (
        "INSERT OVERWRITE {t} VALUES ('alice', 'pear', 3L, 30L), ('erin', 'fig', 4L, 40L)",
        {("alice", "pear"): (3, 30), ("erin", "fig"): (4, 40)},
    ),
}
"""Edit -> (statement, the state it leaves)."""

WAVE_KEYS = sorted({*STORED, ("erin", "fig")})
"""The restart wave: one event of amount 1 for each of these keys."""


@pytest.fixture(scope="module")
def non_strict(spark, tmp_path_factory: pytest.TempPathFactory) -> dict[str, StreamingQuery]:
    """The repartitioned aggregation, run without the strict distribution, per provider."""
    root = tmp_path_factory.mktemp("non_strict")
    return {
        provider: build(spark, "repartitioned_agg", provider, root / provider,
                        confs=NON_STRICT_CONFS)
        for provider in ("hdfs", "rocksdb")
    }  # fmt: skip


RECORDED = "_savepoint/partitioning.json"
"""Where the query's listener recorded the placing columns."""


def _copy(
    spark, query: StreamingQuery, tmp_path: Path, recorded: str | None = '{"0": ["user"]}'
) -> StreamingQuery:
    """A private copy, attached; ``recorded``: the partitioning file's content (None: none, as
    for a checkpoint whose query never ran with spark-savepoint's settings)."""
    copy = query.copy(tmp_path / "copy")
    assert json.loads((copy.checkpoint / RECORDED).read_text()) == {"0": ["user"]}
    crc = copy.checkpoint / "_savepoint" / ".partitioning.json.crc"
    if recorded is None:
        (copy.checkpoint / RECORDED).unlink()
        crc.unlink()
    elif json.loads(recorded) != {"0": ["user"]}:
        (copy.checkpoint / RECORDED).write_text(recorded)  # as a hand edit: Hadoop's .crc goes
        crc.unlink()
    attach(spark, str(copy.checkpoint), CATALOG)
    return copy


def _state(spark, table: str = TABLE) -> dict[tuple, tuple]:
    return {(r.user, r.item): (r.cnt, r.total) for r in spark.table(table).collect()}


def _restart_touching_every_key(spark, query: StreamingQuery) -> dict[tuple, tuple]:
    """Feed one event per wave key and run; what the query emitted per key."""
    query.add_input(
        [
            {"event_id": 100 + i, "user": u, "item": it, "amount": 1, "ts": "2024-01-01 11:00:00"}
            for i, (u, it) in enumerate(WAVE_KEYS)
        ]
    )
    return {(r["user"], r["item"]): (r["cnt"], r["total"]) for r in query.run(spark)}


def _continued(state: dict[tuple, tuple]) -> dict[tuple, tuple]:
    """What the query emits for the wave when it continues from ``state``."""
    return {k: (state.get(k, (0, 0))[0] + 1, state.get(k, (0, 0))[1] + 1) for k in WAVE_KEYS}


def test_the_layout_is_the_inputs_so_the_test_is_decisive(spark, non_strict) -> None:
    """The state is not where all key columns would put it: a write that placed keys by them
    would lose or duplicate entries (the cases below would fail)."""
    attach(spark, str(non_strict["hdfs"].checkpoint), CATALOG)
    rows = spark.sql(
        f"SELECT partition_id, pmod(hash(user), {PARTITIONS}) AS by_user,"
        f" pmod(hash(user, item), {PARTITIONS}) AS by_key FROM {TABLE}"
    ).collect()
    assert all(r.partition_id == r.by_user for r in rows)
    assert any(r.partition_id != r.by_key for r in rows)
    placed = spark.sql(
        f"SELECT pmod(hash('erin'), {PARTITIONS}) AS u, pmod(hash('erin', 'fig'), {PARTITIONS})"
    ).first()
    assert placed[0] != placed[1]


def test_point_lookups_find_every_key(spark, non_strict) -> None:
    attach(spark, str(non_strict["rocksdb"].checkpoint), CATALOG)
    for (user, item), value in STORED.items():
        rows = spark.sql(
            f"SELECT cnt, total FROM {TABLE} WHERE user = '{user}' AND item = '{item}'"
        ).collect()
        assert [tuple(r) for r in rows] == [value]


def test_a_write_that_names_no_partitioning_is_refused_with_what_fits(
    spark, non_strict, tmp_path: Path
) -> None:
    query = _copy(spark, non_strict["hdfs"], tmp_path, recorded=None)
    before = snapshot(query.checkpoint)
    with pytest.raises(SavepointError, match="stored keys fit partitioned_by 'user'") as refused:
        with savepoint_errors():
            spark.sql(f"INSERT INTO {TABLE} VALUES ('erin', 'fig', 1L, 1L)")
    assert refused.value.error_class == "SAVEPOINT_UNKNOWN_PARTITIONING"
    assert "\n" not in str(refused.value)
    assert snapshot(query.checkpoint) == before


@pytest.mark.parametrize(
    ("given", "error_class"),
    [("user,item", "SAVEPOINT_PARTITIONING_MISMATCH"), ("amount", "SAVEPOINT_BAD_ARGUMENTS")],
)
def test_a_partitioning_the_stored_keys_contradict_is_refused(
    spark, non_strict, tmp_path: Path, given: str, error_class: str
) -> None:
    query = _copy(spark, non_strict["hdfs"], tmp_path)
    before = snapshot(query.checkpoint)
    with pytest.raises(SavepointError) as refused, savepoint_errors():
        spark.table(TABLE).limit(1).writeTo(TABLE).option("partitioned_by", given).append()
    assert refused.value.error_class == error_class
    assert snapshot(query.checkpoint) == before


@pytest.mark.slow
@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_every_edit_keeps_each_key_where_the_restarted_query_looks(
    spark, non_strict, tmp_path: Path, edit: str, provider: str
) -> None:
    """The partitioning the query recorded places the keys (each write checks it first)."""
    query = _copy(spark, non_strict[provider], tmp_path)
    statement, expected = EDITS[edit]
    with savepoint_errors():
        spark.sql(statement.format(t=TABLE))
    assert _state(spark) == expected
    assert _restart_touching_every_key(spark, query) == _continued(expected)


def test_a_recorded_partitioning_the_stored_keys_contradict_is_refused(
    spark, non_strict, tmp_path: Path
) -> None:
    query = _copy(spark, non_strict["hdfs"], tmp_path, recorded='{"0": ["item"]}')
    before = snapshot(query.checkpoint)
    with pytest.raises(SavepointError, match="the partitioning 'item' the query recorded"):
        with savepoint_errors():
            spark.sql(f"INSERT INTO {TABLE} VALUES ('erin', 'fig', 1L, 1L)")
    assert snapshot(query.checkpoint) == before


def test_sql_names_the_partitioning(spark, non_strict, tmp_path: Path) -> None:
    query = _copy(spark, non_strict["hdfs"], tmp_path, recorded=None)
    spark.conf.set("spark.savepoint.write.partitionedBy", "user")
    try:
        with savepoint_errors():
            spark.sql(EDITS["insert_new"][0].format(t=TABLE))
    finally:
        spark.conf.unset("spark.savepoint.write.partitionedBy")
    assert _restart_touching_every_key(spark, query) == _continued(EDITS["insert_new"][1])


def test_the_catalogs_query_tells_the_partitioning(spark, non_strict, tmp_path: Path) -> None:
    """``attach(..., query=)`` (and ``--query``) plan the query as it runs on the checkpoint."""
    query = _copy(spark, non_strict["hdfs"], tmp_path, recorded=None)
    query.input_dir.mkdir()
    df = repartitioned_agg_query(spark, query.input_dir)
    attach(spark, str(query.checkpoint), CATALOG, query=df, output_mode="update")
    assert json.loads(spark.conf.get(f"spark.sql.catalog.{CATALOG}.partitionedBy")) == {
        "0": ["user"]
    }
    with savepoint_errors():
        spark.sql(EDITS["insert_new"][0].format(t=TABLE))
    assert _restart_touching_every_key(spark, query) == _continued(EDITS["insert_new"][1])


def test_the_write_option_names_the_partitioning_too(spark, non_strict, tmp_path: Path) -> None:
    query = _copy(spark, non_strict["rocksdb"], tmp_path, recorded=None)
    new = spark.createDataFrame([("erin", "fig", 10, 100)], "user string, item string, cnt long,"
                                " total long")  # fmt: skip
    with savepoint_errors():
        new.writeTo(TABLE).option("partitioned_by", "user").append()
    assert _restart_touching_every_key(spark, query) == _continued(EDITS["insert_new"][1])


@pytest.mark.slow
def test_restore_keeps_the_layout_or_refuses_to_rehash(spark, tmp_path: Path) -> None:
    """A restore onto the other provider keeps every key's partition; one onto another
    partition count is refused (a rehashed key would not be where the query looks)."""
    query = build(spark, "repartitioned_agg", "hdfs", tmp_path / "query", confs=NON_STRICT_CONFS)
    savepoint = tmp_path / "savepoint"
    take_savepoint(spark, str(query.checkpoint), str(savepoint))
    with pytest.raises(RestoreUnsupported, match="keep the partition count"), savepoint_errors():
        restore_savepoint(spark, str(savepoint), str(tmp_path / "rescaled"), partitions=3)
    assert not (tmp_path / "rescaled" / "commits").exists()
    shutil.rmtree(query.checkpoint)  # restored in place: the file source's log names the input
    restore_savepoint(spark, str(savepoint), str(query.checkpoint), provider="rocksdb")
    assert json.loads((query.checkpoint / RECORDED).read_text()) == {"0": ["user"]}
    attach(spark, str(query.checkpoint), CATALOG)
    assert _state(spark) == STORED
    assert _restart_touching_every_key(spark, query) == _continued(STORED)


def test_bad_arguments_error_is_one_line(spark, non_strict, tmp_path: Path) -> None:
    _copy(spark, non_strict["hdfs"], tmp_path)
    spark.conf.set("spark.savepoint.write.partitionedBy", "user,user")
    try:
        with pytest.raises(BadArguments, match="names 'user' twice"), savepoint_errors():
            spark.sql(f"DELETE FROM {TABLE} WHERE user = 'bob'")
    finally:
        spark.conf.unset("spark.savepoint.write.partitionedBy")


@pytest.mark.slow
def test_an_upgrade_must_find_the_stored_keys_where_they_live(spark, tmp_path: Path) -> None:
    """A changed query that no longer partitions its input by user would look for (user, item)
    by both columns: refused. One that still does continues from the upgraded state."""
    query = build(spark, "repartitioned_agg", "rocksdb", tmp_path / "query", confs=NON_STRICT_CONFS)
    events = spark.readStream.schema(EVENTS_SCHEMA).json(str(query.input_dir))
    totals = (F.count("*").alias("cnt"), F.sum("amount").alias("total"))
    unpartitioned = events.groupBy("user", "item").agg(*totals)
    report = upgrade_check(spark, str(query.checkpoint), unpartitioned, "update")
    assert report.verdict == "incompatible"
    assert any("partitions its input by user,item" in reason for reason in report.reasons)
    with pytest.raises(UpgradeRefused, match="partitions its input by user,item") as refused:
        with savepoint_errors():
            upgrade_apply(spark, str(query.checkpoint), str(tmp_path / "v2"), unpartitioned,
                          "update")  # fmt: skip
    assert "fit partitioned_by 'user'" in str(refused.value)
    assert not (tmp_path / "v2").exists()
    kept = events.repartition("user").groupBy("user", "item").agg(*totals)
    assert upgrade_check(spark, str(query.checkpoint), kept, "update").verdict == "compatible"
    shutil.move(query.checkpoint, tmp_path / "v1")  # upgraded in place: the file source's log
    upgrade_apply(spark, str(tmp_path / "v1"), str(query.checkpoint), kept, "update")
    assert _restart_touching_every_key(spark, query) == _continued(STORED)
