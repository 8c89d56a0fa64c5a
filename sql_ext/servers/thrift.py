"""A Spark Thrift (HiveServer2) server over savepoint catalogs, for JDBC and BI tools.

Each checkpoint ``NAME=PATH`` is attached as catalog ``NAME``, so ``NAME.<uid>.<state>`` means
the same over JDBC as in PySpark and ``spark-sql``. For the schema browsers of BI tools (JDBC
metadata lists ``spark_catalog`` only), the catalog's tree is mirrored by flat views (see
:mod:`.views`): database ``NAME_<uid>`` with a view per state, and
``NAME_metadata.metadata``; a background thread keeps them in sync.

The server runs in-process (``HiveThriftServer2.startWithContext``); each JDBC connection gets
a session of its own (its ``USE`` and ``SET`` stay its own), and all share the views and the
catalogs. Read-only by default (:mod:`.access`): the ``ReadOnlyGuard`` extension refuses writes
and DDL from clients; the view refresher uses its own exempt session.

Who gets in: with ``password_file`` (``user:password`` or a bare password, owner-only),
HiveServer2's CUSTOM authentication with the jar's ``PasswordFileAuthenticator``; LDAP, PAM or
Kerberos through ``--hiveconf hive.server2.authentication=...``; without any, NONE (anyone who
reaches the port), which the command line allows on loopback only.

>>> sorted(server_conf({"savepoint": "/ckpt"}, state_dir="/s"))[:2]
['spark.driver.extraClassPath', 'spark.driver.extraJavaOptions']
>>> jdbc_url("127.0.0.1", 10000)
'jdbc:hive2://127.0.0.1:10000/default'
>>> auth_conf(Path("/p"))["hive.server2.authentication"], auth_conf(None)
('CUSTOM', {})
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.bridge import from_java
from spark_savepoint.sql_ext.quiet import log_options, resources_dir
from spark_savepoint.sql_ext.servers.access import access_conf, access_line
from spark_savepoint.sql_ext.servers.credentials import parse_password
from spark_savepoint.sql_ext.servers.lifecycle import (
    check_port,
    new_session,
    quietly,
    stop_on_signals,
    wait_until_stopped,
)
from spark_savepoint.sql_ext.servers.views import metadata_database, sync_views
from spark_savepoint.sql_ext.session import catalog_conf, spark_conf

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

REFRESH_SECONDS = 5.0


def jdbc_url(bind: str, port: int, database: str = "default") -> str:
    """The JDBC URL of a database on the server."""
    return f"jdbc:hive2://{bind}:{port}/{database}"


def server_conf(
    catalogs: Mapping[str, str], *, state_dir: str, allow_writes: bool = False
) -> dict[str, str]:
    """Spark settings (fixed at start) for a server over ``catalogs`` ({name: path})."""
    state = Path(state_dir)
    conf = spark_conf()
    for database, path in catalogs.items():
        conf.update(catalog_conf(path, database))
    conf.update(access_conf(conf["spark.sql.extensions"], allow_writes=allow_writes))
    conf.update({
        "spark.sql.warehouse.dir": str(state / "warehouse"),
        "spark.driver.extraJavaOptions": f"-Dderby.stream.error.file={state / 'derby.log'}",
    })  # fmt: skip
    return conf


AUTHENTICATION = "hive.server2.authentication"
CUSTOM_CLASS = "hive.server2.custom.authentication.class"
CREDENTIAL_AUTHENTICATIONS = ("CUSTOM", "LDAP", "PAM", "KERBEROS")
"""Values of hive.server2.authentication that ask clients for a credential (not NONE, NOSASL)."""


def auth_conf(password_file: Path | None) -> dict[str, str]:
    """HiveServer2 settings that check logins against ``password_file`` (none without one)."""
    if password_file is None:
        return {}
    return {AUTHENTICATION: "CUSTOM", CUSTOM_CLASS: bridge.PASSWORD_AUTHENTICATOR_CLASS}


def asks_credential(hiveconf: Mapping[str, str]) -> bool:
    """Whether HiveServer2 settings make clients log in (CUSTOM, LDAP, PAM, KERBEROS)."""
    return hiveconf.get(AUTHENTICATION, "NONE").upper() in CREDENTIAL_AUTHENTICATIONS


def hive_conf(*, port: int, bind: str, state_dir: str) -> dict[str, str]:
    """HiveServer2 settings (set on the session right before the server starts)."""
    state = Path(state_dir)
    return {
        "hive.server2.thrift.port": str(port),
        "hive.server2.thrift.bind.host": bind,
        "hive.server2.transport.mode": "binary",
        "hive.server2.logging.operation.log.location": str(state / "operation_logs"),
        "hive.exec.local.scratchdir": str(state / "scratch"),
        "hive.downloaded.resources.dir": resources_dir(state),
    }


@dataclass
class ThriftServer:
    """A running server; :meth:`stop` ends the refresher, the server and (if owned) Spark."""

    spark: SparkSession
    admin: SparkSession
    stop_server: Callable[[], None] | None
    catalogs: dict[str, str]
    url: str
    views: dict[str, list[str]]
    refresh_seconds: float = REFRESH_SECONDS
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def sync(self) -> dict[str, list[str]]:
        """Re-create the views of every catalog (new batches need none, new operators do)."""
        for name in self.catalogs:
            self.views[name] = sync_views(self.admin, name)
        return self.views

    def start_refresher(self) -> None:
        """Sync in a daemon thread every ``refresh_seconds`` until :meth:`stop`."""
        self._thread = threading.Thread(target=self._refresh, name="savepoint-views", daemon=True)
        self._thread.start()

    def _refresh(self) -> None:
        while not self._stop.wait(self.refresh_seconds):
            try:
                self.sync()
            except Exception as error:  # keep serving; the next round may succeed
                log.warning("view refresh failed: %s", from_java(error))

    def stop(self) -> None:
        """Stop refreshing and serving (the Spark session stays up)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        if self.stop_server is not None:
            self.stop_server()


def start(
    spark: SparkSession,
    catalogs: Mapping[str, str],
    *,
    port: int = 10000,
    bind: str = "127.0.0.1",
    state_dir: str,
    hiveconf: Mapping[str, str] | None = None,
    password_file: Path | None = None,
    refresh_seconds: float = REFRESH_SECONDS,
) -> ThriftServer:
    """Create the views, then start a Thrift server on ``spark`` (a session built with
    :func:`server_conf`) and the view refresher; with ``password_file``, clients log in with
    its password (see :func:`auth_conf`)."""
    admin = spark.newSession()
    bridge.exempt_from_read_only(admin)
    handle = ThriftServer(spark, admin, None, dict(catalogs), "", {}, refresh_seconds)
    try:
        handle.sync()
    except Exception as error:
        raise from_java(error) from None
    settings = {**hive_conf(port=port, bind=bind, state_dir=state_dir),
                **auth_conf(password_file), **(hiveconf or {})}  # fmt: skip
    for folder in ("hive.exec.local.scratchdir", "hive.server2.logging.operation.log.location"):
        Path(settings[folder]).mkdir(parents=True, exist_ok=True)  # Hive logs an error per session
    for key, value in settings.items():
        spark.conf.set(key, value)
    if password_file is not None:
        bridge.use_password_file(spark, str(password_file.resolve()))
    handle.stop_server = bridge.start_thrift_server(spark)
    handle.url = jdbc_url(bind, port)
    login = parse_password(password_file.read_text()) if password_file else (None, None)
    _warm_up(spark, handle.url, login[0] or "spark-savepoint", login[1])
    handle.start_refresher()
    return handle


def _warm_up(spark: SparkSession, url: str, user: str, password: str | None) -> None:
    """One JDBC connection from inside the server's JVM: checks the server accepts connections
    and pays the one-off metastore set-up of the first metadata call (seconds) before clients."""
    try:
        bridge.jdbc_round_trip(spark, url, user, password)
    except Exception as error:  # e.g. authentication configured with --hiveconf
        log.warning("JDBC warm-up skipped: %s", str(error).splitlines()[0])


def create_session(
    catalogs: Mapping[str, str],
    *,
    state_dir: str,
    allow_writes: bool = False,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A new SparkSession set up for :func:`start`."""
    settings = server_conf(catalogs, state_dir=state_dir, allow_writes=allow_writes)
    return new_session("spark-savepoint-thriftserver", master, {**settings, **(conf or {})})


def serve(
    catalogs: Mapping[str, str],
    *,
    port: int = 10000,
    bind: str = "127.0.0.1",
    allow_writes: bool = False,
    password_file: Path | None = None,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
    hiveconf: Mapping[str, str] | None = None,
    refresh_seconds: float = REFRESH_SECONDS,
    verbose: bool = False,
) -> int:
    """Run a server until SIGINT/SIGTERM; prints the JDBC URL once it accepts connections.
    Spark logs only errors unless ``verbose``; the server's files go to a removed folder."""
    check_port(bind, port, "the Thrift server")
    state_dir = tempfile.mkdtemp(prefix="spark-savepoint-thrift-")
    stop = stop_on_signals()
    java = [
        f"-Dderby.stream.error.file={Path(state_dir) / 'derby.log'}",
        *log_options(Path(state_dir), verbose=verbose),
    ]
    quiet = {"spark.driver.extraJavaOptions": " ".join(java),
             "spark.ui.showConsoleProgress": str(verbose).lower()}  # fmt: skip
    spark = create_session(catalogs, state_dir=state_dir, allow_writes=allow_writes,
                           master=master, conf={**quiet, **(conf or {})})  # fmt: skip
    stop_on_signals(stop)  # again: the SparkContext replaced the SIGINT handler
    try:
        server = start(spark, catalogs, port=port, bind=bind, state_dir=state_dir,
                       hiveconf=hiveconf, password_file=password_file,
                       refresh_seconds=refresh_seconds)  # fmt: skip
        _announce(server, allow_writes, password_file, hiveconf or {})
        wait_until_stopped(stop)
        print("spark-savepoint: stopping the Thrift server", flush=True)
        quietly(server.stop)
    finally:
        quietly(spark.stop)
        shutil.rmtree(state_dir, ignore_errors=True)
    return 0


def _announce(
    server: ThriftServer,
    allow_writes: bool,
    password_file: Path | None,
    hiveconf: Mapping[str, str],
) -> None:
    print(f"JDBC URL: {server.url}", flush=True)
    if password_file is not None:
        user = parse_password(password_file.read_text())[0]
        who = f"user {user}" if user else "any user name"
        print(f"  login: {who} and the password in {password_file} (beeline -n USER -p ...)")
    elif asks_credential(hiveconf):
        print(f"  login: {AUTHENTICATION}={hiveconf[AUTHENTICATION]}")
    else:
        print("  login: none (hive.server2.authentication=NONE): anyone who reaches the port")
    for name, path in server.catalogs.items():
        print(f"  catalog {name}: {path} (SELECT * FROM {name}.metadata)")
        views = server.views.get(name, [])
        print(f"    BI views: {metadata_database(name)}.metadata and "
              f"{len(views) - 1} state view(s): {', '.join(views[1:])}")  # fmt: skip
    print(f"  {access_line(allow_writes=allow_writes)}; Ctrl-C or SIGTERM stops the server",
          flush=True)  # fmt: skip
