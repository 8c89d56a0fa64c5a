"""Every state of every operator kind reads through the catalog exactly as Spark's own
``statestore`` reader returns it, on both providers, from PySpark."""

from __future__ import annotations

import pytest
from pyspark.sql.types import StructType

from spark_savepoint import attach
from spark_savepoint.catalog import bridge
from tests.support.state_rows import leaf_rows
from tests.support.streaming_queries import CASES

UID_KIND = {
    "agg": "agg",
    "window_agg": "agg",
    "dedup": "dedup",
    "join": "join",
    "pandas_state": "groupstate",
    "tws": "tws",
}


def raw_options(kind: str, table: str) -> dict[str, str]:
    """The statestore reader options that select ``table`` (written out independently)."""
    if kind == "join":
        if table in ("left", "right"):
            return {"joinSide": table}
        side, store = table.split("_", 1)
        return {"storeName": f"{side}-{store}"}
    if kind == "tws":
        return {"readRegisteredTimers": "true"} if table == "timers" else {"stateVarName": table}
    return {"storeName": table}


LOG_NAMESPACES = ["sources", "query"]  # the query's logs, beside its operators


@pytest.mark.parametrize(("kind", "provider"), CASES, ids=[f"{k}-{p}" for k, p in CASES])
def test_every_state_reads_like_spark(spark, checkpoints, kind: str, provider: str) -> None:
    ckpt = str(checkpoints[(kind, provider)].checkpoint)
    attach(spark, ckpt, "sp")

    namespaces = [r[0] for r in spark.sql("SHOW NAMESPACES IN sp").collect()]
    assert namespaces == [f"{UID_KIND[kind]}_0", *LOG_NAMESPACES]
    uid = namespaces[0]
    tables = [r.tableName for r in spark.sql(f"SHOW TABLES IN sp.{uid}").collect()]
    assert tables, f"no state tables listed for {kind}"

    for table in tables:
        ours = spark.table(f"sp.{uid}.{table}")
        raw = spark.read.format("statestore").options(**raw_options(kind, table)).load(ckpt)
        assert "partition_id" not in ours.columns  # a metadata column, selected by name
        ours = ours.select("*", "partition_id")
        nested = [
            f.name
            for f in ours.schema.fields
            if f.name in ("key", "value") and isinstance(f.dataType, StructType)
        ]
        assert not nested, f"{uid}.{table} still has nested {nested}"
        expected = leaf_rows(raw)
        assert leaf_rows(ours) == expected, f"{kind}/{provider} {uid}.{table}"
        assert expected, f"{kind}/{provider} {uid}.{table} has no rows to compare"


@pytest.mark.parametrize(("kind", "provider"), CASES, ids=[f"{k}-{p}" for k, p in CASES])
def test_metadata_lists_every_state(spark, checkpoints, kind: str, provider: str) -> None:
    ckpt = str(checkpoints[(kind, provider)].checkpoint)
    attach(spark, ckpt, "sp")
    meta = spark.table("sp.metadata").where("state_kind != 'operator state'").collect()
    tables = {r.tableName for r in spark.sql(f"SHOW TABLES IN sp.{UID_KIND[kind]}_0").collect()}
    assert {r.state for r in meta} == tables
    for row in meta:
        assert row.provider == provider
        assert row.num_partitions == 4
        assert row.key_schema and row.state_bytes > 0
        assert row.max_batch_id >= row.min_batch_id >= 0
        assert row.table_name == f"sp.{row.uid}.{row.state}"


def test_describe_and_read_table(spark, checkpoints) -> None:
    attach(spark, str(checkpoints[("window_agg", "hdfs")].checkpoint), "sp")
    described = [
        (r.col_name, r.data_type, r.comment)
        for r in spark.sql("DESCRIBE EXTENDED sp.agg_0.default").collect()
    ]
    assert described[:3] == [
        ("window", "struct<start:timestamp,end:timestamp>", "state key field"),
        ("user", "string", "state key field"),
        ("count", "bigint", "state value field"),
    ]
    metadata = described.index(("# Metadata Columns", "", ""))
    assert described[metadata + 1] == ("partition_id", "int", "state partition")
    by_read = spark.read.table("sp.agg_0.default").where("user = 'carol'").collect()
    assert [(r.user, r["count"]) for r in by_read] == [("carol", 1)]


PARTITIONED = {"agg": "user", "window_agg": "window, user", "dedup": "event_id"}
"""Kinds whose state partition is ``pmod(hash(<these key columns>), partitions)``."""


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
@pytest.mark.parametrize("kind", list(PARTITIONED))
def test_partition_id_is_a_metadata_column(spark, checkpoints, kind: str, provider: str) -> None:
    """Left out of ``SELECT *``, read when named: the partition Spark's shuffle put the key in
    (``test_key_lookup`` reads it through key lookups)."""
    attach(spark, str(checkpoints[(kind, provider)].checkpoint), "sp")
    table, key = f"sp.{UID_KIND[kind]}_0.default", PARTITIONED[kind]
    assert "partition_id" not in spark.sql(f"SELECT * FROM {table}").columns
    named = spark.sql(f"SELECT *, partition_id, pmod(hash({key}), 4) AS hashed FROM {table}")
    rows = named.collect()
    assert len(rows) >= 3 and all(r.partition_id == r.hashed for r in rows)
    assert named.columns[-2:] == ["partition_id", "hashed"]


def test_tws_and_join_tables_are_named_after_states(spark, checkpoints) -> None:
    attach(spark, str(checkpoints[("tws", "rocksdb")].checkpoint), "sp")
    tables = [r.tableName for r in spark.sql("SHOW TABLES IN sp.tws_0").collect()]
    assert tables == ["count", "history", "items", "timers"]
    items = spark.sql("SELECT user, item, count FROM sp.tws_0.items WHERE user = 'bob'").collect()
    assert [tuple(r) for r in items] == [("bob", "pear", 2)]
    attach(spark, str(checkpoints[("join", "hdfs")].checkpoint), "sp")
    joins = [r.tableName for r in spark.sql("SHOW TABLES IN sp.join_0").collect()]
    assert joins[:2] == ["left", "right"]
    assert "left_keyToNumValues" in joins
    left = spark.sql("SELECT left_key, left_value FROM sp.join_0.left ORDER BY left_key")
    assert [tuple(r) for r in left.collect()] == [("a", 1), ("b", 2), ("c", 3)]


def test_configured_class_names_match_the_jar(spark) -> None:
    """The names Python sets before the JVM starts are the classes the jar has."""
    assert bridge.jvm_class_names(spark) == {
        name: getattr(bridge, name)
        for name in ("CATALOG_CLASS", "EXTENSIONS_CLASS", "QUERY_LISTENER_CLASS",
                     "VALUE_NAMES_LISTENER_CLASS", "READ_ONLY_GUARD_CLASS",
                     "LOCAL_FILE_SYSTEM_CLASS", "LOCAL_FS_CLASS", "PASSWORD_AUTHENTICATOR_CLASS",
                     "PASSWORD_FILE_PROPERTY")
    }  # fmt: skip


def test_local_files_go_through_the_forkless_file_system(spark, tmp_path) -> None:
    """A session of ``session()`` reads and writes ``file:`` paths (the checkpoints of every
    other test) through the local file system that sets permissions without a process."""
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    path = jvm.org.apache.hadoop.fs.Path(tmp_path.as_uri())
    assert path.getFileSystem(conf).getClass().getName() == bridge.LOCAL_FILE_SYSTEM_CLASS
    context = jvm.org.apache.hadoop.fs.FileContext.getFileContext(path.toUri(), conf)
    assert context.getDefaultFileSystem().getClass().getName() == bridge.LOCAL_FS_CLASS


def test_a_checkpoint_replaced_in_place_reads_with_its_own_schema(
    spark, checkpoints, tmp_path
) -> None:
    """A state's schema is inferred once per committed batch (read.InferredSchemas): another
    checkpoint put at the same path, with the same batch and operator ids but other state,
    reads with its own columns, not the remembered ones."""
    import shutil

    folder = tmp_path / "checkpoint"
    shutil.copytree(checkpoints[("agg", "hdfs")].checkpoint, folder)
    attach(spark, str(folder), "replaced")
    assert spark.table("replaced.agg_0.default").columns == ["user", "cnt", "total"]
    shutil.rmtree(folder)
    shutil.copytree(checkpoints[("dedup", "hdfs")].checkpoint, folder, copy_function=shutil.copy)
    attach(spark, str(folder), "replaced")
    assert spark.table("replaced.dedup_0.default").columns == ["event_id"]
