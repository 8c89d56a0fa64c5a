"""The one door to the actions: the catalog's stored procedures.

``CALL <catalog>.system.<name>(...)`` (``dev.sparksavepoint.procedures.Procedures``) runs an
action on the folder a catalog is attached to, or on the session (its last edit, dry runs,
transactions), and returns typed rows. The Python verbs call the procedures through a scratch
catalog pointed at the folder for one call: in a classic session straight through the JVM
bridge (the same procedure and rows, without a statement to parse, analyze and collect: about
half of a small take's time), over Spark Connect with ``CALL``; SQL, Thrift and Connect
clients call them directly::

    CALL savepoint.system.take_savepoint('/savepoints/before-fix')
    CALL savepoint.system.last_edit()
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from spark_savepoint.catalog import bridge

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession

SCRATCH_CATALOG = "spark_savepoint_scratch"
"""The prefix of the catalog names a call points at a folder for one statement (checks, CALL):
one name per thread, so that calls of two threads on one session never see each other's folder
(the catalog reads its folder from the session's settings when it runs)."""


@contextmanager
def scratch_catalog(
    spark: SparkSession, path: str | None, like: str | None = None
) -> Iterator[str]:
    """A catalog on ``path`` (None: on no folder, for the session's procedures) for the
    statements of the block (its name); errors inside come out as :class:`SavepointError`
    subclasses. Its path is unset afterwards."""
    name = f"{SCRATCH_CATALOG}_{threading.get_ident()}"
    prefix = f"spark.sql.catalog.{name}"
    with bridge.savepoint_errors():
        spark.conf.set(prefix, bridge.CATALOG_CLASS)
        spark.conf.set(f"{prefix}.path", "" if path is None else str(path))
        spark.conf.set(f"{prefix}.like", like or "")
        try:
            yield name
        finally:
            spark.conf.unset(f"{prefix}.path")
            spark.conf.unset(f"{prefix}.like")


def call(spark: SparkSession, folder: str, procedure: str, **arguments: Any) -> Row:
    """Run ``procedure`` on ``folder`` with named ``arguments``; its (one) result row.

    Raises:
        SavepointError: the action's own error (``TargetNotEmpty``, ``ReadOnly``, ...).
    """
    return call_rows(spark, folder, procedure, **arguments)[0]


def call_rows(
    spark: SparkSession, folder: str | None, procedure: str, **arguments: Any
) -> list[Row]:
    """Run ``procedure`` on ``folder`` (None: a procedure of the session, such as
    ``last_edit``) with named ``arguments``; its result rows.

    Raises:
        SavepointError: the action's own error (``TargetNotEmpty``, ``TransactionEnded``, ...).
    """
    with scratch_catalog(spark, folder) as name:
        if not bridge.is_remote(spark):
            return bridge.call_procedure(spark, name, procedure, arguments)
        named = ", ".join(f"{key} => {sql_literal(value)}" for key, value in arguments.items())
        return spark.sql(f"CALL `{name}`.system.{procedure}({named})").collect()


def sql_literal(value: str | int | bool | None) -> str:
    r"""``value`` as a Spark SQL literal. Procedures take literals, not parameter markers: Spark
    4.0 refuses ``CALL ...(name => :name)`` ("args must be foldable").

    >>> sql_literal("it's C:\\tmp"), sql_literal(8), sql_literal(True), sql_literal(None)
    ("'it\\'s C:\\\\tmp'", '8', 'true', 'NULL')
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def check_checkpoint(spark: SparkSession, path: str, like: str | None = None) -> None:
    """Raise the catalog's own error when ``path`` cannot be opened as a checkpoint (by the
    driver: also over Spark Connect); with ``like``, a missing ``path`` is first created as an
    empty savepoint like it.

    Raises:
        SavepointError: ``NoSuchCheckpoint``, ``NotACheckpoint``, ``TargetNotEmpty``, ...
    """
    with scratch_catalog(spark, path, like) as name:
        spark.sql(f"SHOW NAMESPACES IN `{name}`").collect()


ListedFile = tuple[str, int, int]
"""A file found by :func:`list_files`: (path relative to the folder listed, bytes, modification
time in ms since the epoch)."""


def list_files(spark: SparkSession, folder: str) -> list[ListedFile]:
    """Every file under ``folder`` (recursively, any Hadoop file system), sorted by path; []
    when ``folder`` does not exist. One call, ``CALL ...system.list_files()``: a flat paged
    listing on object stores and HDFS, a ``listStatus`` walk on the local disk, checksum
    sidecars hidden."""
    rows = call_rows(spark, folder, "list_files")
    return [(str(r.path), int(r.bytes), int(r.modified_ms)) for r in rows]
