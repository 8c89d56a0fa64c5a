"""The Python API from a Spark Connect session (``SparkSession.builder.remote(URL)``, e.g. the
``pyspark-client`` package against ``spark-savepoint connect``).

A Connect client has no driver JVM to call, only SQL, settings and DataFrames, so the functions
that can work through those do: ``attach`` sets the catalog's settings on the client's session
(after the server opened the checkpoint, so a bad path fails with the catalog's own error),
``session`` builds a Connect session when ``SPARK_REMOTE`` is set, savepoints are taken,
restored and disposed of with ``CALL <catalog>.system.*`` and listed with ``savepoint_list``.
Functions that need the driver's JVM raise :class:`ConnectUnsupported`, one line saying what
to use instead (:func:`local_only`). Errors from the server carry their ``[SAVEPOINT_*]``
class in the message: :func:`spark_savepoint.savepoint_error` turns them into the same
:class:`SavepointError` subclasses as locally.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments, ConnectUnsupported
from spark_savepoint.catalog.jar import pyspark_jars

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

F = TypeVar("F", bound=Callable[..., Any])

SCRATCH_CATALOG = "spark_savepoint_scratch"
"""The catalog name a client's calls point at a checkpoint for one statement (checks, CALL)."""

is_remote = bridge.is_remote


def local_only(instead: str) -> Callable[[F], F]:
    """Make a function whose first argument is a SparkSession refuse a Connect session, in one
    line that names the function and says what to use ``instead``."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def checked(spark: Any, *args: Any, **kwargs: Any) -> Any:
            if is_remote(spark):
                raise ConnectUnsupported(
                    f"{function.__name__}() needs the Spark driver's JVM, which a Spark Connect "
                    f"session does not reach: {instead}"
                )
            return function(spark, *args, **kwargs)

        return checked  # type: ignore[return-value]

    return decorate


def remote_wanted() -> bool:
    """True when ``spark_savepoint.session()`` is for Spark Connect: the active session is a
    Connect session, or none is active and ``SPARK_REMOTE`` is set or only the Connect client
    (``pyspark-client``, no Spark jars) is installed."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return is_remote(active)
    return bool(os.environ.get("SPARK_REMOTE")) or not pyspark_jars().is_dir()


def session(
    path: str | None, catalog: str, master: str | None, like: str | None, conf: Mapping[str, str]
) -> SparkSession:
    """``spark_savepoint.session(...)`` for Spark Connect: the active Connect session, or a
    new one on ``SPARK_REMOTE`` with ``conf`` set on it (runtime settings only); ``path``
    attached as ``catalog``."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        if path is not None:
            attach(active, path, catalog, like=like)
        return active
    if not os.environ.get("SPARK_REMOTE"):
        raise ConnectUnsupported(
            "only the Spark Connect client (pyspark-client) is installed, which cannot start "
            "Spark: set SPARK_REMOTE to the server's URL (e.g. sc://127.0.0.1:15002, as "
            "`spark-savepoint connect` prints), or attach(spark, path) to a session built with "
            "SparkSession.builder.remote(URL)."
        )
    if master is not None:
        raise BadArguments(
            f"master={master!r} and SPARK_REMOTE={os.environ['SPARK_REMOTE']!r} cannot go "
            "together: the Connect server has its own master. Unset one of them."
        )
    spark = SparkSession.builder.getOrCreate()
    with bridge.savepoint_errors():
        for key, value in conf.items():
            spark.conf.set(key, value)
    if path is not None:
        attach(spark, path, catalog, like=like)
    return spark


def attach(
    spark: SparkSession,
    path: str,
    catalog: str,
    like: str | None = None,
    writable: bool = False,
    sink: str | None = None,
    query: DataFrame | None = None,
    output_mode: str = "append",
) -> None:
    """``spark_savepoint.attach`` for a Connect session: the server opens ``path`` first (with
    ``like``, creating it when missing), then the catalog's settings are set on ``spark``."""
    if query is not None:
        raise ConnectUnsupported(
            "attach(query=...) needs the Spark driver's JVM to plan the streaming query, which "
            "a Spark Connect session does not reach: attach without query= (value columns keep "
            "Spark's buffer names), or attach with query= in a local session."
        )
    check_checkpoint(spark, path, like)
    prefix = f"spark.sql.catalog.{catalog}"
    settings = {
        prefix: bridge.CATALOG_CLASS,
        f"{prefix}.path": str(path),
        f"{prefix}.writable": str(bool(writable)).lower(),
        f"{prefix}.sink": sink or "",
        f"{prefix}.valueNames": "",
    }
    with bridge.savepoint_errors():
        for key, value in settings.items():
            spark.conf.set(key, value)


def check_checkpoint(spark: SparkSession, path: str, like: str | None = None) -> None:
    """Raise the catalog's own error when the server cannot open ``path`` as a checkpoint;
    with ``like``, a missing ``path`` is first created as an empty savepoint like it."""
    with scratch_catalog(spark, path, like) as name:
        spark.sql(f"SHOW NAMESPACES IN `{name}`").collect()


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


def take_savepoint(
    spark: SparkSession, checkpoint: str, target: str, batch: int, uids: list[str], writable: bool
) -> str:
    """``CALL <catalog>.system.take_savepoint`` on ``checkpoint``: the manifest as JSON text."""
    return _call(spark, checkpoint, "take_savepoint", target=str(target), batch_id=int(batch),
                 uids=",".join(uids), writable=bool(writable))  # fmt: skip


def restore_savepoint(
    spark: SparkSession, savepoint: str, target: str, partitions: int, provider: str | None,
    uids: list[str], drops: list[str],
) -> str:  # fmt: skip
    """``CALL <catalog>.system.restore_savepoint`` on ``savepoint``: a one-line summary."""
    return _call(spark, savepoint, "restore_savepoint", target=str(target),
                 partitions=int(partitions), provider=provider or "", uids=",".join(uids),
                 drop=",".join(drops))  # fmt: skip


def dispose_savepoint(spark: SparkSession, path: str) -> str:
    """``CALL <catalog>.system.dispose_savepoint``: one line saying what went."""
    return _call(spark, path, "dispose_savepoint", path=str(path))


def list_savepoints(spark: SparkSession, folder: str) -> list[dict[str, Any]]:
    """``SELECT * FROM savepoint_list(folder)``: one dict per savepoint, sorted by path."""
    with bridge.savepoint_errors():
        rows = spark.sql("SELECT * FROM savepoint_list(:folder)", args={"folder": str(folder)})
        return sorted((row.asDict() for row in rows.collect()), key=lambda row: row["path"])


def _call(spark: SparkSession, checkpoint: str, procedure: str, **arguments: Any) -> str:
    """Run procedure ``procedure`` of a catalog on ``checkpoint`` with named arguments; the
    ``message`` it returns."""
    named = ", ".join(f"{name} => :{name}" for name in arguments)
    with scratch_catalog(spark, checkpoint) as name:
        rows = spark.sql(f"CALL `{name}`.system.{procedure}({named})", args=arguments).collect()
    return str(rows[0]["message"])
