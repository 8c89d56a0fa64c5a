"""The one door to the whole-checkpoint actions: the catalog's stored procedures.

``CALL <catalog>.system.<name>(...)`` (``dev.sparksavepoint.procedures.Procedures``) runs an
action on the folder a catalog is attached to and returns typed rows. The Python verbs call the
procedures through a scratch catalog pointed at the folder for one statement, the same way in a
classic session and over Spark Connect; SQL, Thrift and Connect clients call them directly::

    CALL savepoint.system.take_savepoint('/savepoints/before-fix')
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from spark_savepoint.catalog import bridge

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession

SCRATCH_CATALOG = "spark_savepoint_scratch"
"""The catalog name a call points at a folder for one statement (checks, CALL)."""


@contextmanager
def scratch_catalog(spark: SparkSession, path: str, like: str | None = None) -> Iterator[str]:
    """A catalog on ``path`` for the statements of the block (its name); errors inside come
    out as :class:`SavepointError` subclasses. Its path is unset afterwards."""
    prefix = f"spark.sql.catalog.{SCRATCH_CATALOG}"
    with bridge.savepoint_errors():
        spark.conf.set(prefix, bridge.CATALOG_CLASS)
        spark.conf.set(f"{prefix}.path", str(path))
        spark.conf.set(f"{prefix}.like", like or "")
        try:
            yield SCRATCH_CATALOG
        finally:
            spark.conf.unset(f"{prefix}.path")
            spark.conf.unset(f"{prefix}.like")


def call(spark: SparkSession, folder: str, procedure: str, **arguments: Any) -> Row:
    """Run ``procedure`` on ``folder`` with named ``arguments``; its (one) result row.

    Raises:
        SavepointError: the action's own error (``TargetNotEmpty``, ``ReadOnly``, ...).
    """
    named = ", ".join(f"{name} => :{name}" for name in arguments)
    with scratch_catalog(spark, folder) as name:
        rows = spark.sql(f"CALL `{name}`.system.{procedure}({named})", args=arguments).collect()
    return rows[0]
