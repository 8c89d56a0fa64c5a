"""Spark's own ``statestore`` reader, the reference every catalog read is compared with.

``read_state`` is ``spark.read.format("statestore")`` with the given options, at the last
committed batch. Given a ``schema``, it hands that schema to the reader's ``getTable`` instead of
the one the reader infers from the checkpoint's schema file, through py4j (``format(...)
.schema(...)`` is refused: the source takes no user schema). The reader decodes the stored rows
with the schema it is given, so this reads state whose schema file does not describe its rows as
Spark 4.3 reads the same rows under the right schema. The reader takes the checkpoint format
from the session, so it runs with the format of the checkpoint's last commit. Void fields
(dedup's ``__dummy__``, a global limit's key) are left out of the rows, as the catalog leaves
them out of its columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import NullType, StructType

from tests.compat.memory_stream import CHECKPOINT_FORMAT_CONF
from tests.compat.restart import commit_format
from tests.support.streaming_queries import session_confs


def read_state(
    spark: SparkSession, checkpoint: Path, options: Mapping[str, str], schema: str | None = None
) -> list[Any]:
    """The rows (``key``, ``value``, ``partition_id``) Spark's reader reads of one state."""
    confs = {CHECKPOINT_FORMAT_CONF: str(commit_format(checkpoint))}
    with session_confs(spark, confs):
        if schema is None:
            reader = spark.read.format("statestore").option("path", str(checkpoint))
            frame = reader.options(**options).load()
        else:
            frame = _with_schema(spark, {"path": str(checkpoint), **options}, schema)
        return _without_void_fields(frame).collect()


def _without_void_fields(frame: DataFrame) -> DataFrame:
    """``frame`` with the void fields of its struct columns left out (and structs left empty)."""
    columns = []
    for column in frame.schema.fields:
        if not isinstance(column.dataType, StructType):
            columns.append(F.col(column.name))
            continue
        kept = [f.name for f in column.dataType.fields if not isinstance(f.dataType, NullType)]
        if kept:
            fields = [F.col(f"`{column.name}`.`{name}`").alias(name) for name in kept]
            columns.append(F.struct(*fields).alias(column.name))
    return frame.select(*columns)


def _with_schema(spark: SparkSession, options: Mapping[str, str], schema: str) -> DataFrame:
    jvm = spark._jvm
    java_options = jvm.java.util.HashMap()
    for key, value in options.items():
        java_options.put(key, value)
    source = jvm.org.apache.spark.sql.execution.datasources.v2.state.StateDataSource()
    no_transforms = spark.sparkContext._gateway.new_array(
        jvm.org.apache.spark.sql.connector.expressions.Transform, 0
    )
    table = source.getTable(jvm.org.apache.spark.sql.types.StructType.fromDDL(schema),
                            no_transforms, java_options)  # fmt: skip
    none = jvm.scala.Option.empty()
    relation = jvm.org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation.create(
        table,
        none,
        none,
        jvm.org.apache.spark.sql.util.CaseInsensitiveStringMap(java_options),
        none,
    )
    return DataFrame(jvm.org.apache.spark.sql.classic.Dataset.ofRows(spark._jsparkSession,
                                                                     relation), spark)  # fmt: skip
