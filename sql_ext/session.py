"""Create or extend a SparkSession so checkpoints are readable as ``<catalog>.<uid>.<state>``."""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.catalog.jar import jar_path
from spark_savepoint.sql_ext import connect_client, procedures

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

DEFAULT_CATALOG = "savepoint"
QUERY_LISTENERS = (bridge.QUERY_LISTENER_CLASS, bridge.VALUE_NAMES_LISTENER_CLASS)
log = logging.getLogger(__name__)


_CATALOG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_catalog_name(catalog: str) -> str:
    """``catalog`` when it can name a catalog: one SQL identifier (``orders_ckpt``), as
    ``<catalog>.<uid>.<state>`` takes it without quotes.

    Raises:
        BadArguments: ``'a.b'``, ``''``, ``'1x'``, ``'orders-ckpt'``, ...
    """
    if not isinstance(catalog, str) or not _CATALOG_NAME.fullmatch(catalog):
        raise BadArguments(
            f"{catalog!r} cannot name a catalog: a catalog name is one identifier of ASCII"
            " letters, digits and _ that does not start with a digit (e.g. savepoint,"
            " orders_ckpt)."
        )
    return catalog


def catalog_conf(path: str, catalog: str = DEFAULT_CATALOG) -> dict[str, str]:
    """The two settings that attach one checkpoint as a catalog."""
    check_catalog_name(catalog)
    return {
        f"spark.sql.catalog.{catalog}": bridge.CATALOG_CLASS,
        f"spark.sql.catalog.{catalog}.path": str(path),
    }


def jar_conf(spark_version: str | None = None) -> dict[str, str]:
    """The jar on the driver (and shipped to executors), the SQL table functions
    (``savepoint_metadata``, ``savepoint_state``) and rules, and the query listener; the jar
    is the one of Spark ``spark_version`` (default: the installed pyspark's)."""
    jar = str(jar_path(spark_version))
    return {
        "spark.driver.extraClassPath": jar,
        "spark.jars": jar,
        "spark.sql.extensions": bridge.EXTENSIONS_CLASS,
        # an edit can tell that this driver's own streaming query has stopped; a query records
        # its names for aggregation value columns in its checkpoint
        "spark.sql.streaming.streamingQueryListeners": ",".join(QUERY_LISTENERS),
    }


def local_files_conf() -> dict[str, str]:
    """The forkless local file system: ``file:`` paths without a forked chmod/readlink process
    per file (no native Hadoop). Meant for local checkpoints only."""
    return {
        "spark.hadoop.fs.file.impl": bridge.LOCAL_FILE_SYSTEM_CLASS,
        "spark.hadoop.fs.AbstractFileSystem.file.impl": bridge.LOCAL_FS_CLASS,
    }


def is_local(path: str) -> bool:
    """Whether ``path`` is a local folder: a ``file:`` URI or a path without a scheme.

    >>> is_local("/data/ckpt"), is_local("file:///data/ckpt"), is_local("hdfs://nn/ckpt")
    (True, True, False)
    """
    return urlparse(path).scheme in ("", "file")


def spark_conf(path: str | None = None, catalog: str = DEFAULT_CATALOG) -> dict[str, str]:
    """Settings for a new Spark application: :func:`jar_conf`, :func:`local_files_conf`, plus
    the catalog when ``path`` is given.

    >>> sorted(spark_conf("/tmp/ckpt"))[0]
    'spark.driver.extraClassPath'
    """
    conf = {**jar_conf(), **local_files_conf()}
    if path is not None:
        conf.update(catalog_conf(path, catalog))
    return conf


def session(
    path: str | None = None,
    catalog: str = DEFAULT_CATALOG,
    master: str | None = None,
    like: str | None = None,
    **conf: str,
) -> SparkSession:
    """A SparkSession with the checkpoint at ``path`` attached as ``catalog``.

    With ``like``, a missing ``path`` is first created as an empty savepoint shaped like that
    checkpoint (see :func:`spark_savepoint.create_savepoint`). Extra Spark settings go in ``conf``
    (pass dotted keys with ``**{"spark.x": "y"}``). When a session is already running (a
    notebook's, a ``spark-submit`` job's) it is reused: the jar and the table functions are
    loaded into it (see :func:`attach`) and the checkpoint attached to it; ``master`` and
    ``conf`` then do not apply.

    Raises:
        SavepointError: a subclass per ``SAVEPOINT_*`` class, e.g. ``NoSuchCheckpoint``.
    """
    from pyspark.sql import SparkSession

    if connect_client.remote_wanted():  # a Spark Connect session (SPARK_REMOTE)
        return connect_client.session(path, catalog, master, like, conf)
    active = SparkSession.getActiveSession()
    if active is not None:
        if path is not None:
            attach(active, path, catalog, like=like)
        else:
            _load_jar(active)
        return active
    builder = SparkSession.builder.appName("spark-savepoint")
    builder = builder.master(master or "local[*]")
    for key, value in _merge(spark_conf(path, catalog), conf).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    bridge.quiet_state_store_warnings(spark)
    if path is not None:
        procedures.check_checkpoint(spark, path, like)
    return spark


_LIST_SETTINGS = {
    "spark.sql.extensions": ",",
    "spark.sql.streaming.streamingQueryListeners": ",",
    "spark.jars": ",",
    "spark.driver.extraClassPath": ":",
}


def _merge(ours: dict[str, str], theirs: dict[str, str]) -> dict[str, str]:
    """``theirs`` over ``ours``, except list-valued settings, which keep the items of both.

    >>> _merge({"spark.jars": "a.jar,b.jar"}, {"spark.jars": "b.jar,c.jar"})
    {'spark.jars': 'b.jar,c.jar,a.jar'}
    """
    merged = {**ours, **theirs}
    for key, separator in _LIST_SETTINGS.items():
        if key in ours and key in theirs:
            items = theirs[key].split(separator)
            items += [item for item in ours[key].split(separator) if item not in items]
            merged[key] = separator.join(items)
    return merged


def attach(
    spark: SparkSession,
    path: str,
    catalog: str = DEFAULT_CATALOG,
    like: str | None = None,
    writable: bool = False,
    sink: str | None = None,
    query: DataFrame | None = None,
    output_mode: str = "append",
) -> None:
    """Attach the checkpoint (or savepoint) at ``path`` to a running session as ``catalog``
    (replacing what that name pointed at before); with ``like``, create it first as an empty
    savepoint when missing. A savepoint is read-only unless taken writable or attached with
    ``writable=True``. ``sink``: the output folder of the query's file sink, whose log
    ``<catalog>.sink.files`` reads (it lives beside the output, not in the checkpoint).
    ``query``: the streaming DataFrame that writes the checkpoint (run with ``output_mode``):
    aggregation value columns then take its names (``cnt``, ``total``) instead of Spark's
    buffer names (``count``, ``sum``), for reads and writes alike. Without it they take the
    names the query recorded in the checkpoint when it last ran with spark-savepoint's settings
    (``_savepoint/value-names.json``), while they fit the checkpoint; else Spark's.

    ``spark`` may be any running session, also one started without spark-savepoint's settings
    (``SparkSession.builder.getOrCreate()`` in a notebook): the jar is loaded into its driver
    and shipped to its executors, and the table functions and SQL rules are installed.

    >>> attach(spark, "/data/ckpt", sink="/data/out")  # doctest: +SKIP
    >>> spark.table("savepoint.sources.offsets").show()  # doctest: +SKIP
    """
    check_catalog_name(catalog)
    if connect_client.is_remote(spark):
        return connect_client.attach(spark, path, catalog, like, writable, sink, query, output_mode)
    _load_jar(spark)
    procedures.check_checkpoint(spark, path, like)
    prefix = f"spark.sql.catalog.{catalog}"
    settings = {
        **catalog_conf(path, catalog),
        f"{prefix}.writable": str(bool(writable)).lower(),
        f"{prefix}.sink": sink or "",
        f"{prefix}.valueNames": "",  # the names the query recorded in the checkpoint, if any
        f"{prefix}.partitionedBy": "",  # likewise its partitioning
    }
    if query is not None:
        settings.update(query_conf(spark, path, query, output_mode, catalog))
    for key, value in settings.items():
        spark.conf.set(key, value)


def query_conf(
    spark: SparkSession,
    path: str,
    query: DataFrame,
    output_mode: str = "append",
    catalog: str = DEFAULT_CATALOG,
) -> dict[str, str]:
    """The settings that tell catalog ``catalog`` on ``path`` what streaming DataFrame ``query``
    (run with ``output_mode``) does, planned in ``spark``: the names of its aggregation value
    columns, and the columns that place its operators' keys (used by writes when it runs
    without the strict distribution). What ``attach(..., query=)`` sets, for a session started
    later as well."""
    facts = json.loads(bridge.query_facts(spark, path, query, output_mode))
    return {
        f"spark.sql.catalog.{catalog}.valueNames": json.dumps(facts["valueNames"]),
        f"spark.sql.catalog.{catalog}.partitionedBy": json.dumps(facts["partitionedBy"]),
    }


def _load_jar(spark: SparkSession) -> None:
    """Load the jar and what the session's settings would have installed; warn of any piece
    that a running session cannot take."""
    missing = bridge.load_jar(spark)
    if missing is not None:
        log.warning("spark-savepoint: %s; create the session with spark_savepoint.session(...) "
                    "to have them.", missing)  # fmt: skip
