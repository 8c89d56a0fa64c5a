"""A Spark Connect server over savepoint catalogs, for PySpark clients (``pyspark-client``).

``spark-savepoint connect [NAME=]PATH...`` starts Spark in this process with the project's
settings (the jar, the SQL extensions and their table functions ``savepoint_metadata``,
``savepoint_state``, ``savepoint_list``) and each checkpoint attached as catalog ``NAME``
(``savepoint`` for the first plain path), then starts Spark's Connect service (gRPC) in that
driver. Clients connect with ``SparkSession.builder.remote("sc://127.0.0.1:15002")`` and use
the catalogs as a local session does: reads, ``VERSION AS OF``, INSERT/DELETE/UPDATE/MERGE and
``df.writeTo(...)``, ``spark_savepoint.attach(spark, path, name)`` for more checkpoints.

Writes are allowed, as in a local session or ``spark-savepoint sql`` (a Connect client is a
program that edits state); ``read_only`` refuses them with the Thrift server's guard. Each client
session has its own settings: what one client attaches, the others do not see.

>>> conf = server_conf({"savepoint": "/ckpt"}, port=15002, bind="127.0.0.1")
>>> conf["spark.sql.catalog.savepoint.path"], conf["spark.connect.grpc.binding.port"]
('/ckpt', '15002')
>>> connect_url("127.0.0.1", 15002)
'sc://127.0.0.1:15002'
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.quiet import scratch, spark_settings
from spark_savepoint.sql_ext.servers import (
    accepts_connections,
    check_port,
    quietly,
    stop_on_signals,
    wait_until_stopped,
)
from spark_savepoint.sql_ext.session import catalog_conf, spark_conf

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_PORT = 15002
"""Spark Connect's own default port."""

READY_SECONDS = 60.0
"""How long the service may take to accept connections once started."""


def connect_url(bind: str, port: int) -> str:
    """The URL a client passes to ``SparkSession.builder.remote``."""
    host = "127.0.0.1" if bind in ("", "0.0.0.0") else bind
    return f"sc://{host}:{port}"


def server_conf(
    catalogs: Mapping[str, str], *, port: int, bind: str, read_only: bool = False
) -> dict[str, str]:
    """Spark settings (fixed at start) for a Connect server over ``catalogs`` ({name: path})."""
    conf = spark_conf()
    for name, path in catalogs.items():
        conf.update(catalog_conf(path, name))
    conf.update({
        "spark.connect.grpc.binding.address": bind,
        "spark.connect.grpc.binding.port": str(port),
        # clients' Python UDFs and UDTFs run in workers of this interpreter (it has pyspark)
        "spark.pyspark.python": sys.executable,
    })  # fmt: skip
    if read_only:
        conf["spark.sql.extensions"] += f",{bridge.READ_ONLY_GUARD_CLASS}"
        conf["spark.savepoint.readOnly"] = "true"
    return conf


@dataclass
class ConnectServer:
    """A running Connect service; :meth:`stop` ends it (the Spark session stays up)."""

    spark: SparkSession
    catalogs: dict[str, str]
    url: str
    stop: Callable[[], None]


def start(
    spark: SparkSession, catalogs: Mapping[str, str], *, port: int, bind: str
) -> ConnectServer:
    """Start the Connect service in ``spark``'s driver (a session built with
    :func:`server_conf`), once each catalog's checkpoint opens; returns when it accepts
    connections."""
    for name in catalogs:  # the catalog's own error for a bad path, before any client comes
        with bridge.savepoint_errors():
            spark.sql(f"SHOW NAMESPACES IN `{name}`").collect()
    stop = bridge.start_connect_server(spark)
    if not accepts_connections(bind, port, READY_SECONDS):
        quietly(stop)
        raise RuntimeError(f"Spark Connect did not accept connections on {bind}:{port}")
    return ConnectServer(spark, dict(catalogs), connect_url(bind, port), stop)


def create_session(
    catalogs: Mapping[str, str],
    *,
    port: int,
    bind: str,
    read_only: bool = False,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A new SparkSession set up for :func:`start`."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("spark-savepoint-connect").master(master)
    settings = {
        "spark.ui.enabled": "false",
        **server_conf(catalogs, port=port, bind=bind, read_only=read_only),
        **(conf or {}),
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def serve(
    catalogs: Mapping[str, str],
    *,
    port: int = DEFAULT_PORT,
    bind: str = "127.0.0.1",
    read_only: bool = False,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
    verbose: bool = False,
) -> int:
    """Run a server until SIGINT/SIGTERM; prints the ``sc://`` URL once it accepts
    connections. Spark logs only errors unless ``verbose``; its files go to a removed folder."""
    check_port(bind, port, "the Connect server")
    stop = stop_on_signals()
    with scratch("spark-savepoint-connect-") as folder:
        settings = {**spark_settings(folder, verbose=verbose), **(conf or {})}
        spark = create_session(catalogs, port=port, bind=bind, read_only=read_only,
                               master=master, conf=settings)  # fmt: skip
        stop_on_signals(stop)  # again: the SparkContext replaced the SIGINT handler
        try:
            server = start(spark, catalogs, port=port, bind=bind)
            _announce(server, read_only)
            wait_until_stopped(stop)
            print("spark-savepoint: stopping the Connect server", flush=True)
            quietly(server.stop)
        finally:
            quietly(spark.stop)
    return 0


def _announce(server: ConnectServer, read_only: bool) -> None:
    print(f"Spark Connect URL: {server.url}", flush=True)
    for name, path in server.catalogs.items():
        print(f"  catalog {name}: {path} (SELECT * FROM {name}.metadata)")
    mode = "read-only (--read-only)" if read_only else "writes allowed"
    print(f"  {mode}; Ctrl-C or SIGTERM stops the server", flush=True)
