"""A Spark Connect server over savepoint catalogs, for PySpark clients (``pyspark-client``).

``spark-savepoint connect [NAME=]PATH...`` starts Spark in this process with the project's
settings (the jar, the SQL extensions and their table functions ``savepoint_metadata``,
``savepoint_state``, ``savepoint_list``) and each checkpoint attached as catalog ``NAME``
(``savepoint`` for the first plain path), then starts Spark's Connect service (gRPC) in that
driver. Clients connect with the URL it prints,
``SparkSession.builder.remote("sc://localhost:15002/;token=...")``, and use the catalogs as a
local session does: reads, ``VERSION AS OF``, ``spark_savepoint.attach(spark, path, name)`` for
more checkpoints and, with ``allow_writes``, INSERT/DELETE/UPDATE/MERGE and ``df.writeTo(...)``.

Clients need a token, always: Spark's own pre-shared token authentication
(``spark.connect.authenticate.token``) refuses a gRPC call without ``Authorization: Bearer
<token>``. The token comes from ``--token-file``, the environment variable Spark reads
(``SPARK_CONNECT_AUTHENTICATE_TOKEN``) or ``--conf spark.connect.authenticate.token=...``, or is
generated for this start and written, owner-only, to ``~/.spark-savepoint/connect-<port>.token``
(removed at stop). The URL says ``localhost``: pyspark sends a token only over TLS, except to
the host ``localhost`` (gRPC local credentials); Spark's Connect server has no TLS settings.

Read-only by default (the ``ReadOnlyGuard`` extension, as on the Thrift server: :mod:`.access`):
no writes, no CALL, no DDL. A token holder can still run Python code on the server (UDFs), so
read-only guards against mistakes, not against the token holder. Each client session has its own
settings: what one client attaches, the others do not see.

>>> conf = server_conf({"savepoint": "/ckpt"}, port=15002, bind="127.0.0.1", token="t")
>>> conf["spark.sql.catalog.savepoint.path"], conf["spark.connect.grpc.binding.port"]
('/ckpt', '15002')
>>> conf["spark.connect.authenticate.token"], conf["spark.savepoint.readOnly"]
('t', 'true')
>>> connect_url("127.0.0.1", 15002, "t")
'sc://localhost:15002/;token=t'
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyspark

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import SparkVersionUnsupported
from spark_savepoint.sql_ext.quiet import scratch, spark_settings
from spark_savepoint.sql_ext.servers.access import access_conf, access_line
from spark_savepoint.sql_ext.servers.credentials import (
    is_loopback,
    new_token,
    read_secret,
    secrets_dir,
    write_secret,
)
from spark_savepoint.sql_ext.servers.lifecycle import (
    accepts_connections,
    check_port,
    new_session,
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

TOKEN_CONF = "spark.connect.authenticate.token"
"""Spark's setting for the pre-shared token clients must send (Spark 4.0+)."""

TOKEN_ENV = "SPARK_CONNECT_AUTHENTICATE_TOKEN"
"""The environment variable Spark's server and pyspark's client read the token from."""


def connect_url(bind: str, port: int, token: str) -> str:
    """The URL a client passes to ``SparkSession.builder.remote``: ``localhost`` for a loopback
    or wildcard bind (pyspark sends a token without TLS only to ``localhost``)."""
    host = "localhost" if bind in ("", "0.0.0.0", "::") or is_loopback(bind) else bind
    return f"sc://{host}:{port}/;token={token}"


def server_conf(
    catalogs: Mapping[str, str],
    *,
    port: int,
    bind: str,
    token: str,
    allow_writes: bool = False,
) -> dict[str, str]:
    """Spark settings (fixed at start) for a Connect server over ``catalogs`` ({name: path})
    that lets in clients with ``token``; read-only unless ``allow_writes``."""
    conf = spark_conf()
    for name, path in catalogs.items():
        conf.update(catalog_conf(path, name))
    conf.update({
        "spark.connect.grpc.binding.address": bind,
        "spark.connect.grpc.binding.port": str(port),
        TOKEN_CONF: token,
        # clients' Python UDFs and UDTFs run in workers of this interpreter (it has pyspark)
        "spark.pyspark.python": sys.executable,
    })  # fmt: skip
    conf.update(access_conf(conf["spark.sql.extensions"], allow_writes=allow_writes))
    return conf


@dataclass
class Token:
    """The token clients need, the owner-only file it is in, and where it came from."""

    value: str
    file: Path
    origin: str


def token_path(port: int) -> Path:
    """Where a generated token goes: ``~/.spark-savepoint/connect-<port>.token``."""
    return secrets_dir() / f"connect-{port}.token"


@contextmanager
def server_token(
    port: int, token_file: Path | None = None, conf: Mapping[str, str] | None = None
) -> Iterator[Token]:
    """The token of ``--token-file`` (owner-only), of ``SPARK_CONNECT_AUTHENTICATE_TOKEN`` or
    ``--conf spark.connect.authenticate.token``, else a new one; one not read from a file is
    written, owner-only, to :func:`token_path`, removed when the context ends."""
    if token_file is not None:
        yield Token(read_secret(token_file, "--token-file"), token_file, "--token-file")
        return
    given = (conf or {}).get(TOKEN_CONF) or os.environ.get(TOKEN_ENV)
    file = write_secret(token_path(port), given or new_token())
    origin = "given, removed at stop" if given else "generated for this start, removed at stop"
    try:
        yield Token(read_secret(file, "the token file"), file, origin)
    finally:
        file.unlink(missing_ok=True)


@dataclass
class ConnectServer:
    """A running Connect service; :meth:`stop` ends it (the Spark session stays up)."""

    spark: SparkSession
    catalogs: dict[str, str]
    url: str
    stop: Callable[[], None]


def start(
    spark: SparkSession, catalogs: Mapping[str, str], *, port: int, bind: str, token: str
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
    return ConnectServer(spark, dict(catalogs), connect_url(bind, port, token), stop)


def create_session(
    catalogs: Mapping[str, str],
    *,
    port: int,
    bind: str,
    token: str,
    allow_writes: bool = False,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A new SparkSession set up for :func:`start`."""
    settings = server_conf(catalogs, port=port, bind=bind, token=token, allow_writes=allow_writes)
    return new_session("spark-savepoint-connect", master, {**settings, **(conf or {})})


def serve(
    catalogs: Mapping[str, str],
    *,
    port: int = DEFAULT_PORT,
    bind: str = "127.0.0.1",
    allow_writes: bool = False,
    token_file: Path | None = None,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
    verbose: bool = False,
) -> int:
    """Run a server until SIGINT/SIGTERM; prints the ``sc://`` URL (with its token) once it
    accepts connections. Spark logs only errors unless ``verbose``; its files go to a removed
    folder.

    Raises:
        SparkVersionUnsupported: pyspark before 4.0 (:func:`check_spark`).
    """
    check_spark(pyspark.__version__)
    check_port(bind, port, "the Connect server")
    stop = stop_on_signals()
    with server_token(port, token_file, conf) as token, \
            scratch("spark-savepoint-connect-") as folder:  # fmt: skip
        settings = {**spark_settings(folder, verbose=verbose), **(conf or {})}
        spark = create_session(catalogs, port=port, bind=bind, token=token.value,
                               allow_writes=allow_writes, master=master,
                               conf=settings)  # fmt: skip
        stop_on_signals(stop)  # again: the SparkContext replaced the SIGINT handler
        try:
            server = start(spark, catalogs, port=port, bind=bind, token=token.value)
            _announce(server, token, bind, allow_writes)
            wait_until_stopped(stop)
            print("spark-savepoint: stopping the Connect server", flush=True)
            quietly(server.stop)
        finally:
            quietly(spark.stop)
    return 0


def check_spark(version: str) -> None:
    """Refuse a Spark whose Connect server cannot require a credential.

    >>> check_spark("4.0.5")
    >>> try:
    ...     check_spark("3.5.9")
    ... except SparkVersionUnsupported as refused:
    ...     print(refused.error_class)
    SAVEPOINT_SPARK_VERSION

    Raises:
        SparkVersionUnsupported: Spark before 4.0, whose Connect server has no authentication
            (``spark.connect.authenticate.token`` came with 4.0) and ships apart from pyspark.
    """
    if int(version.split(".")[0]) < 4:
        raise SparkVersionUnsupported(
            f"spark-savepoint connect needs Spark 4.0 or later; this is pyspark {version}, "
            "whose Connect server lets in anyone who reaches its port (Spark's token "
            "authentication came with 4.0): on 3.5 use spark-savepoint thriftserver (with a "
            "password), or the Python API in your own job."
        )


def _announce(server: ConnectServer, token: Token, bind: str, allow_writes: bool) -> None:
    print(f"Spark Connect URL: {server.url}", flush=True)
    print(f"  token in {token.file} (owner-only, {token.origin}); clients without it are refused")
    if not is_loopback(bind):
        print(f"  bound to {bind}: Spark Connect has no TLS, so pyspark sends the token to "
              "another host only over TLS: put a TLS proxy in front, or tunnel (ssh -L) and "
              "use localhost")  # fmt: skip
    for name, path in server.catalogs.items():
        print(f"  catalog {name}: {path} (SELECT * FROM {name}.metadata)")
    print(f"  {access_line(allow_writes=allow_writes)}; Ctrl-C or SIGTERM stops the server",
          flush=True)  # fmt: skip
