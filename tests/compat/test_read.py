"""Checkpoints written by every supported Spark version read through the catalog.

Each golden checkpoint (``tests/golden``) is read table by table and compared with what the Spark
version that wrote it read with its own ``statestore`` source at build time. Spark 3.5 has no such
source: its checkpoints are compared with what 4.0 read of the same query on the same input (the
state is the same data), and with the query's own output where the output tells the state.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spark_savepoint import attach
from tests.compat.golden import Golden, as_compared, goldens, reference_state
from tests.compat.matrix import cell
from tests.support.streaming_queries import session_confs

CATALOG = "golden"
FAST_CASES = ("agg-rocksdb", "pandas_state-hdfs", "agg-rocksdb_v2")
"""Cases the fast loop (``-m "not slow"``) reads of every version; the others are slow."""
GOLDENS = [
    pytest.param(g, id=g.id, marks=() if g.case in FAST_CASES else pytest.mark.slow)
    for g in goldens()
]


def _catalog_tables(spark, golden: Golden, tmp_path: Path) -> dict[str, str]:
    """Attach the golden (a relocated copy for transformWithState, whose metadata records
    absolute schema paths of where it was built); its state name -> table name."""
    if golden.kind == "tws":
        attach(spark, str(golden.copy(tmp_path / golden.case).checkpoint), CATALOG)
    else:
        attach(spark, str(golden.folder / "checkpoint"), CATALOG)
    rows = spark.sql(
        f"SELECT state, table_name FROM {CATALOG}.metadata WHERE operator_id IS NOT NULL"
    ).collect()
    return {row.state: row.table_name for row in rows}


def _state_from_output(golden: Golden) -> list[tuple] | None:
    """The state the query's output implies (latest row per key), where it tells it all."""
    emitted = golden.expected["emitted"]
    latest: dict[tuple, tuple] = {}
    if golden.kind in ("agg", "pandas_state"):
        for row in emitted:
            latest[(row["user"],)] = (row["cnt"], row["total"])
    elif golden.kind == "dedup":
        for row in emitted:
            latest[(row["event_id"],)] = ()
    else:
        return None
    return sorted(key + value for key, value in latest.items())


@pytest.mark.parametrize("golden", GOLDENS)
def test_golden_state_reads_as_spark_read_it(spark, golden: Golden, tmp_path: Path) -> None:
    with cell(golden, "read"):
        tables = _catalog_tables(spark, golden, tmp_path)
        reference = reference_state(golden)
        assert sorted(tables) == sorted(reference)
        for state, expected in reference.items():
            got = spark.table(tables[state]).select("*", "partition_id").collect()
            assert as_compared(got) == as_compared(expected["rows"]), f"{golden.id} {state}"
        implied = _state_from_output(golden)
        if implied is not None:
            got = spark.table(tables["default"]).collect()
            assert sorted(tuple(r) for r in got) == implied


@pytest.mark.parametrize("golden", GOLDENS)
def test_metadata_names_the_version_and_what_was_inferred(
    spark, golden: Golden, tmp_path: Path
) -> None:
    _catalog_tables(spark, golden, tmp_path)
    rows = spark.sql(
        f"SELECT uid, spark_version, inferred FROM {CATALOG}.metadata WHERE operator_id IS NOT NULL"
    ).collect()
    assert {row.uid for row in rows} == {golden.uid}
    assert {row.spark_version for row in rows} == {golden.spark_version_shown}
    inferred = {row.inferred for row in rows}
    if golden.minor == "3.5":  # no operator metadata: layout and kind come from the files
        assert inferred == {
            "partitions and stores from the folder layout; operator kind from the state schema"
        }
    else:
        assert inferred == {None}


@pytest.mark.slow
@pytest.mark.parametrize("golden", GOLDENS)
def test_query_logs_read_as_the_version_wrote_them(spark, golden: Golden, tmp_path: Path) -> None:
    _catalog_tables(spark, golden, tmp_path)
    offsets = sorted((golden.folder / "checkpoint" / "offsets").glob("[0-9]*"), key=_batch)
    last = offsets[-1].read_text().split("\n")
    rows = spark.table(f"{CATALOG}.sources.offsets").collect()
    assert [(r.batch_id, r.offset_json) for r in rows] == [
        (_batch(offsets[-1]), line) for line in last[2:] if line
    ]
    batches = spark.table(f"{CATALOG}.query.batches").collect()
    assert [r.batch_id for r in batches] == [_batch(p) for p in offsets]
    assert [r.watermark_ms for r in batches] == [
        json.loads(p.read_text().split("\n")[1])["batchWatermarkMs"] for p in offsets
    ]


def _batch(path: Path) -> int:
    return int(path.name)


@pytest.mark.parametrize("case", ["agg-rocksdb", "agg-rocksdb_v2"])
def test_the_checkpoint_format_is_the_checkpoints_not_the_sessions(spark, case: str) -> None:
    """Spark's reader takes the format from the session conf; ours from the checkpoint."""
    golden = next(g for g in goldens("4.3.0") if g.case == case)
    attach(spark, str(golden.folder / "checkpoint"), CATALOG)
    other = "1" if golden.format_version == 2 else "2"
    with session_confs(spark, {"spark.sql.streaming.stateStore.checkpointFormatVersion": other}):
        got = spark.table(f"{CATALOG}.agg_0.default").select("*", "partition_id").collect()
    assert as_compared(got) == as_compared(golden.expected["state"]["default"]["rows"])
