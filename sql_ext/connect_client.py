"""The Python API from a Spark Connect session (``SparkSession.builder.remote(URL)``, e.g. the
``pyspark-client`` package against ``spark-savepoint connect``).

A Connect client has no driver JVM to call, only SQL, settings and DataFrames, so the functions
that can work through those do: ``attach`` sets the catalog's settings on the client's session
(after the server opened the checkpoint, so a bad path fails with the catalog's own error),
``session`` builds a Connect session when ``SPARK_REMOTE`` is set; the savepoint actions run
through the catalog's procedures (:mod:`~spark_savepoint.sql_ext.procedures`) as in a classic
session.
Functions that need the driver's JVM raise :class:`ConnectUnsupported`, one line saying what
to use instead (:func:`local_only`). Errors from the server carry their ``[SAVEPOINT_*]``
class in the message: :func:`spark_savepoint.savepoint_error` turns them into the same
:class:`SavepointError` subclasses as locally.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments, ConnectUnsupported
from spark_savepoint.catalog.jar import pyspark_jars
from spark_savepoint.sql_ext.procedures import check_checkpoint

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

F = TypeVar("F", bound=Callable[..., Any])

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
