"""Apache Spark's own golden checkpoints through the catalog (see ``tests.compat.spark_goldens``).

Per checkpoint: the catalog lists the tables (or gives the one-line refusal) recorded for it.
Per state table: its rows equal what Spark 4.3's own ``statestore`` reader reads of the same
state, row by row with ``partition_id``; a lookup that pins every key column finds exactly the
rows with that key; a DELETE of one key and an INSERT of a new row, on a private copy, read back
with Spark's reader as the rows before with that key removed and the new row in the partition
Spark puts it; tables that cannot be written refuse in one line. Where the query can be written
in PySpark, it is restarted on the edited copy and continues from the edit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from spark_savepoint import SavepointError, attach, savepoint_errors
from tests.compat.delta_files import delta_entries
from tests.compat.golden import as_compared
from tests.compat.memory_stream import restart
from tests.compat.spark_goldens import GOLDENS, Refusal, SparkGolden, StateTable
from tests.compat.state_reader import read_state

CATALOG = "sg"


def _marks(golden: SparkGolden, *more: Any) -> tuple:
    return (pytest.mark.slow, *more) if golden.slow else more


GOLDEN_PARAMS = [pytest.param(g, id=g.id, marks=_marks(g)) for g in GOLDENS]
READ_PARAMS = [
    pytest.param(g, t, id=f"{g.id}-{t.name}", marks=_marks(g))
    for g in GOLDENS
    if g.refusal is None
    for t in g.tables
]
LOOKUP_PARAMS = [
    pytest.param(g, t, id=f"{g.id}-{t.name}", marks=_marks(g))
    for g in GOLDENS
    if g.refusal is None
    for t in g.tables
    if t.key
]  # fmt: skip
EDIT_PARAMS = [
    pytest.param(g, t, id=f"{g.id}-{t.name}", marks=_marks(g))
    for g in GOLDENS
    if g.refusal is None
    for t in g.tables
    if t.delete is not None
]  # fmt: skip
REFUSED_WRITE_PARAMS = [
    pytest.param(g, t, id=f"{g.id}-{t.name}", marks=_marks(g))
    for g in GOLDENS
    if g.refusal is None
    for t in [next((t for t in g.tables if t.refused_write is not None), None)]
    if t is not None
]
"""One table per checkpoint: a join's four stores refuse the same way."""
RESTORED_PARAMS = [
    pytest.param(g, id=g.id, marks=_marks(g))
    for g in GOLDENS
    if g.refusal is not None and g.refusal.error_class == "SAVEPOINT_NO_STATE_SCHEMA" and g.restart
]
"""Checkpoints without a state schema file that the queries of Spark's suites restart."""
RESTART_PARAMS = [
    pytest.param(g, id=g.id)
    for g in GOLDENS
    if g.refusal is None and g.restart is not None
]  # fmt: skip


def _attach(spark, folder: Path) -> None:
    attach(spark, str(folder), CATALOG)


def _listed(spark) -> dict[str, str]:
    """``uid.state`` -> ``spark_version`` of every state table ``metadata`` lists."""
    rows = spark.sql(
        f"SELECT uid, state, spark_version FROM {CATALOG}.metadata WHERE operator_id IS NOT NULL"
    ).collect()
    return {f"{r.uid}.{r.state}": r.spark_version for r in rows}


def _warnings(spark) -> list[str]:
    """``metadata.warnings``: the same on every row."""
    rows = spark.sql(f"SELECT DISTINCT warnings FROM {CATALOG}.metadata").collect()
    assert len(rows) == 1
    return list(rows[0].warnings)


def _assert_refusal(error: BaseException | None, refusal: Refusal) -> None:
    """``error`` is ``refusal``: its class, one line, the reason it gives."""
    assert isinstance(error, SavepointError), f"expected {refusal.error_class}, got {error!r}"
    assert error.error_class == refusal.error_class, str(error)
    java = getattr(error.__cause__, "java_exception", None)
    line = str(java.getMessage()) if java is not None else str(error)
    assert "\n" not in line.strip(), line
    assert re.search(refusal.reason, str(error)), f"{refusal.reason!r} not in {error}"


@pytest.mark.parametrize("golden", GOLDEN_PARAMS)
def test_the_catalog_reads_or_refuses_as_recorded(spark, golden: SparkGolden) -> None:
    listed: dict[str, str] = {}
    error: BaseException | None = None
    try:
        with savepoint_errors():
            _attach(spark, golden.folder)
            listed = _listed(spark)
            if golden.refusal is not None:  # readable tables: test_state_reads_as_spark_reads_it
                for table in listed:
                    spark.table(f"{CATALOG}.{table}").collect()
    except SavepointError as refused:
        error = refused
    if golden.refusal is not None:
        _assert_refusal(error, golden.refusal)
    else:
        assert error is None, str(error)
    if golden.refusal is None or golden.tables:  # refused reading a table: it was listed first
        assert sorted(listed) == sorted(t.name for t in golden.tables)
        assert set(listed.values()) <= {golden.spark_version}
        warnings = _warnings(spark)
        assert len(warnings) == len(golden.warnings), warnings
        for line, pattern in zip(warnings, golden.warnings, strict=True):
            assert re.search(pattern, line), f"{pattern!r} not in {line!r}"


_REFERENCE: dict[tuple[str, str], list[tuple]] = {}


def _reference(spark, golden: SparkGolden, table: StateTable, folder: Path | None = None) -> list:
    """What Spark's reader reads of ``table`` (of ``folder``, else of the golden; cached)."""
    if folder is not None:
        return as_compared(read_state(spark, folder, table.options, table.reader_schema))
    key = (golden.id, table.name)
    if key not in _REFERENCE:
        _REFERENCE[key] = as_compared(
            read_state(spark, golden.folder, table.options, table.reader_schema)
        )
    return _REFERENCE[key]


@pytest.mark.parametrize(("golden", "table"), READ_PARAMS)
def test_state_reads_as_spark_reads_it(spark, golden: SparkGolden, table: StateTable) -> None:
    _attach(spark, golden.folder)
    got = spark.table(f"{CATALOG}.{table.name}").select("*", "partition_id").collect()
    expected = _reference(spark, golden, table)
    assert expected, "a golden table with no rows proves little"
    assert as_compared(got) == expected


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "\\'") + "'"
    if hasattr(value, "isoformat"):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    return repr(value)


@pytest.mark.parametrize(("golden", "table"), LOOKUP_PARAMS)
def test_point_lookups_find_the_rows_of_their_key(
    spark, golden: SparkGolden, table: StateTable
) -> None:
    _attach(spark, golden.folder)
    name = f"{CATALOG}.{table.name}"
    rows = spark.table(name).select("*", "partition_id").collect()
    assert rows
    for row in (rows[0], rows[-1]):  # each lookup is a statement: two keep the suite quick
        pinned = " AND ".join(f"{k} = {_literal(row[k])}" for k in table.key)
        got = spark.sql(f"SELECT *, partition_id FROM {name} WHERE {pinned}").collect()
        same_key = [r for r in rows if all(r[k] == row[k] for k in table.key)]
        assert as_compared(got) == as_compared(same_key), pinned


def _with_options(golden: SparkGolden) -> str:
    """The write options of an edit: the layout's columns where the state is partitioned by
    fewer columns than its key."""
    if not golden.partitioned_by:
        return ""
    return f" WITH ('partitioned_by' = '{','.join(golden.partitioned_by)}')"


def _expected_partition(spark, golden: SparkGolden, table: StateTable, partitions: int) -> int:
    """The partition Spark's query puts the inserted row in: ``pmod(hash(...), partitions)``
    of the layout's columns, typed as the table's columns."""
    schema = spark.table(f"{CATALOG}.{table.name}").schema
    names = ", ".join(f.name for f in schema.fields)
    columns = golden.partitioned_by or table.key
    typed = ", ".join(f"CAST({c} AS {schema[c].dataType.simpleString()})" for c in columns)
    return spark.sql(
        f"SELECT pmod(hash({typed}), {partitions}) FROM VALUES {table.insert} AS v({names})"
    ).first()[0]


def _delete_and_insert(spark, golden: SparkGolden, table: StateTable) -> None:
    """The golden's edit of ``table`` on the attached copy: DELETE one key, INSERT one row
    (forced: Spark's suites left no run record; with the golden's ``partitioned_by``)."""
    name = f"{CATALOG}.{table.name}"
    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        with savepoint_errors():
            spark.sql(f"DELETE FROM {name}{_with_options(golden)} WHERE {table.delete}")
            spark.sql(f"INSERT INTO {name}{_with_options(golden)} VALUES {table.insert}")
    finally:
        spark.conf.unset("spark.savepoint.write.force")


@pytest.mark.parametrize(("golden", "table"), EDIT_PARAMS)
def test_a_delete_and_an_insert_read_back_with_sparks_reader(
    spark, golden: SparkGolden, table: StateTable, tmp_path: Path
) -> None:
    copy = golden.copy(tmp_path / "copy")
    _attach(spark, copy)
    before = _reference(spark, golden, table)
    partitions = spark.sql(
        f"SELECT num_partitions FROM {CATALOG}.metadata WHERE uid || '.' || state = '{table.name}'"
    ).first()[0]
    name = f"{CATALOG}.{table.name}"
    deleted = as_compared(
        spark.sql(f"SELECT *, partition_id FROM {name} WHERE {table.delete}").collect()
    )
    assert deleted, f"{table.delete} matches no row"
    partition = _expected_partition(spark, golden, table, partitions)
    added = as_compared(
        spark.sql(f"SELECT *, {partition} AS partition_id FROM VALUES {table.insert}").collect()
    )
    _delete_and_insert(spark, golden, table)
    after = _reference(spark, golden, table, copy)
    assert after == sorted([r for r in before if r not in deleted] + added)


@pytest.mark.parametrize(("golden", "table"), REFUSED_WRITE_PARAMS)
def test_tables_that_cannot_be_written_refuse_in_one_line(
    spark, golden: SparkGolden, table: StateTable, tmp_path: Path
) -> None:
    copy = golden.copy(tmp_path / "copy")
    _attach(spark, copy)
    files = sorted(p.relative_to(copy) for p in copy.rglob("*"))
    error = None
    try:
        with savepoint_errors():
            spark.sql(f"DELETE FROM {CATALOG}.{table.name}")
    except SavepointError as refused:
        error = refused
    assert table.refused_write is not None
    _assert_refusal(error, table.refused_write)
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == files


@pytest.mark.parametrize("golden", RESTART_PARAMS)
@pytest.mark.slow
def test_the_restarted_query_continues_from_the_edit(
    spark, golden: SparkGolden, tmp_path: Path
) -> None:
    plan = golden.restart
    assert plan is not None
    table = next(t for t in golden.tables if t.delete is not None)
    copy = golden.copy(tmp_path / "copy")
    _attach(spark, copy)
    _delete_and_insert(spark, golden, table)
    emitted = restart(spark, copy, plan.schema, plan.query, plan.output_mode, plan.rows,
                      plan.format_version)  # fmt: skip
    assert emitted == sorted(plan.emitted)


@pytest.mark.parametrize("golden", RESTORED_PARAMS)
def test_a_restart_on_spark_4_gives_a_checkpoint_without_schema_what_it_lacks(
    spark, golden: SparkGolden, tmp_path: Path
) -> None:
    """What SAVEPOINT_NO_STATE_SCHEMA tells to do: one run on a Spark that writes the schema
    file (and operator metadata), after which every table reads as Spark's reader reads it."""
    plan = golden.restart
    assert plan is not None
    copy = golden.copy(tmp_path / "copy")
    if plan.spark_refuses is not None:  # what the refusal says Spark refuses, it does
        with pytest.raises(Exception, match=plan.spark_refuses):
            restart(spark, copy, plan.schema, plan.query, plan.output_mode, plan.rows)
        return
    emitted = restart(spark, copy, plan.schema, plan.query, plan.output_mode, plan.rows)
    assert emitted == sorted(plan.emitted)
    _attach(spark, copy)
    listed = _listed(spark)
    assert set(listed.values()) == {"4.3"}
    for name in listed:
        uid, state = name.split(".")
        options = {"operatorId": uid.rsplit("_", 1)[1], "storeName": state}
        got = spark.table(f"{CATALOG}.{name}").select("*", "partition_id").collect()
        assert as_compared(got) == as_compared(read_state(spark, copy, options)), name


@pytest.mark.slow
def test_an_edit_of_a_3_3_dedup_stores_the_placeholder_spark_3_3_stored(
    spark, tmp_path: Path
) -> None:
    """Spark 3.3's dropDuplicates recorded the whole row as its value schema (SPARK-39650) but
    stored a placeholder of one null field: an inserted key gets byte for byte the value that
    Spark 3.3 stored for the keys it saw."""
    golden = next(g for g in GOLDENS if g.id == "3.3.0-streaming-deduplication")
    copy = golden.copy(tmp_path / "copy")
    stored = {v for p in copy.glob("state/0/*/*.delta") for _, v in delta_entries(spark, p, "lz4")}
    assert len(stored) == 1, "Spark 3.3 stored one placeholder for every key"
    _attach(spark, copy)
    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        spark.sql(f"INSERT INTO {CATALOG}.dedup_0.default VALUES ('z')")
    finally:
        spark.conf.unset("spark.savepoint.write.force")
    written = [v for p in copy.glob("state/0/*/3.delta") for _, v in delta_entries(spark, p, "lz4")]
    assert written == list(stored)
