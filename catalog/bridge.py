"""The one module that talks to the JVM: every py4j call of spark-savepoint goes through here.

It names the JVM classes Spark loads by configuration (the catalog, the SQL extensions, the
query listeners, the read-only guard), checks the jar is on a session's classpath, calls the
JVM actions, and turns the ``SAVEPOINT_*`` errors they raise into
:class:`~spark_savepoint.catalog.errors.SavepointError` subclasses. Everything else in Python
works with plain values and this module's functions.

>>> error = savepoint_error(Exception("[SAVEPOINT_NO_SUCH_STATE] No state 'x' in agg_0."))
>>> type(error).__name__, error.error_class
('NoSuchState', 'SAVEPOINT_NO_SUCH_STATE')
>>> savepoint_error(ValueError("unrelated")) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from spark_savepoint.catalog.errors import (
    ConnectUnsupported,
    JvmPieceMissing,
    SavepointError,
    SparkVersionUnsupported,
    from_message,
)
from spark_savepoint.catalog.jar import jar_path

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession

# Class names Spark loads by configuration (set before the JVM starts, so spelled out here;
# tests/integration check them against PythonEntry's constants).
CATALOG_CLASS = "dev.sparksavepoint.catalog.SavepointCatalog"
EXTENSIONS_CLASS = "dev.sparksavepoint.sql.SavepointExtensions"
QUERY_LISTENER_CLASS = "dev.sparksavepoint.commit.QueryRuns"
VALUE_NAMES_LISTENER_CLASS = "dev.sparksavepoint.sql.ValueNamesListener"
READ_ONLY_GUARD_CLASS = "dev.sparksavepoint.sql.ReadOnlyGuard"
LOCAL_FILE_SYSTEM_CLASS = "dev.sparksavepoint.localfs.ForklessLocalFileSystem"
LOCAL_FS_CLASS = "dev.sparksavepoint.localfs.ForklessLocalFs"
PASSWORD_AUTHENTICATOR_CLASS = "dev.sparksavepoint.server.PasswordFileAuthenticator"
PASSWORD_FILE_PROPERTY = "dev.sparksavepoint.passwordFile"
LOGGER = "dev.sparksavepoint"
EDITS_LOGGER = "dev.sparksavepoint.edits"
CRASH_SNAPSHOTS_PROPERTY = "dev.sparksavepoint.crashSnapshots"
CRASH_POINT_PROPERTY = "dev.sparksavepoint.haltAt"


def savepoint_error(error: BaseException) -> SavepointError | None:
    """The :class:`SavepointError` subclass instance that a pyspark, py4j or Python error
    carries (by its Java cause chain or its message), or None."""
    if isinstance(error, SavepointError):
        return error
    return next(filter(None, map(from_message, _messages(error))), None)


def _messages(error: BaseException) -> Iterator[str]:
    """Messages to search, most specific first: the Java exception and its causes, then str()."""
    java = getattr(error, "java_exception", None) or getattr(error, "_origin", None)
    seen = 0
    while java is not None and seen < 20:
        try:
            yield str(java.getMessage() or "")
            java = java.getCause()
        except Exception:  # a py4j object of a stopped JVM
            break
        seen += 1
    yield str(error)


@contextmanager
def savepoint_errors() -> Iterator[None]:
    """Re-raise any error that carries a ``SAVEPOINT_*`` class as its :class:`SavepointError`
    subclass (the original stays as ``__cause__``)::

        with savepoint_errors():
            spark.sql("INSERT INTO savepoint.agg_0.default VALUES ('a', 1, 1)")
    """
    try:
        yield
    except SavepointError:
        raise
    except Exception as error:
        converted = savepoint_error(error)
        if converted is None:
            raise
        raise converted from error


def from_java(error: BaseException) -> BaseException:
    """The SavepointError inside a py4j/pyspark error, or the error itself when there is none."""
    return savepoint_error(error) or error


def is_remote(spark: Any) -> bool:
    """Whether ``spark`` is a Spark Connect session (``SparkSession.builder.remote(...)``):
    its driver's JVM runs elsewhere, so only SQL and DataFrames reach it, never this module."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def _no_jvm_here() -> ConnectUnsupported:
    return ConnectUnsupported(
        "this needs the Spark driver's JVM, which a Spark Connect session does not reach: use "
        "its SQL form, or run it in a local session (spark_savepoint.session()) or where the "
        "Connect server runs (see the README, 'From Spark Connect')."
    )


def _jvm(spark: SparkSession) -> Any:
    if is_remote(spark):
        raise _no_jvm_here()
    return spark._jvm  # type: ignore[attr-defined]


def _jsession(spark: SparkSession) -> Any:
    if is_remote(spark):
        raise _no_jvm_here()
    return spark._jsparkSession  # type: ignore[attr-defined]


def _entry(spark: SparkSession) -> Any:
    """``dev.sparksavepoint.PythonEntry``: the JVM side's only entry point for Python."""
    return _jvm(spark).dev.sparksavepoint.PythonEntry


def jvm_class_names(spark: SparkSession) -> dict[str, str]:
    """The configured class names as the JVM spells them (to check the constants above)."""
    names = _entry(spark).classNames()
    return {str(key): str(names[key]) for key in names}


def load_jar(spark: SparkSession) -> str | None:
    """Make ``spark`` ready for checkpoints, also when it was started without the project's
    settings (a notebook's session, a ``spark-submit`` job's): the jar joins the driver's class
    loader and is shipped to executors, then the table functions, analyzer rules and query
    listeners are installed (``LateInstall``). Idempotent.

    Returns:
        None, or a sentence naming what could not be installed into this running session.

    Raises:
        JvmPieceMissing: the driver's class loader takes no jars at run time.
        SparkVersionUnsupported: the tool has no jar for this session's Spark.
    """
    if not _loadable(spark, CATALOG_CLASS):
        _add_jar(spark)
    missing = _entry(spark).installLate(_jsession(spark))
    return None if missing is None else str(missing)


def _loadable(spark: SparkSession, name: str) -> bool:
    jvm = _jvm(spark)
    try:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        jvm.java.lang.Class.forName(name, True, loader)
    except Exception:
        return False
    return True


def _add_jar(spark: SparkSession) -> None:
    """Add the jar to the class loader Spark's submit set up for the driver (the parent of the
    local executor's loader, so both see one copy of each class), and to the executors' jars."""
    jvm, jar = _jvm(spark), str(jar_path(spark.version))  # the jar of the running Spark
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    try:
        loader.addURL(jvm.java.io.File(jar).toURI().toURL())
    except Exception as error:
        raise JvmPieceMissing(
            f"this SparkSession's driver class loader ({loader.getClass().getName()}) takes no "
            "jars at run time: start the session with spark_savepoint.session(...), or start "
            f"Spark with the settings of `spark-savepoint conf` (--driver-class-path {jar})."
        ) from error
    spark.sparkContext._jsc.sc().addJar(jar)  # type: ignore[union-attr]


def upgrade_check(
    spark: SparkSession, checkpoint: str, query: Any, output_mode: str, maps: list[str]
) -> str:
    """Plan streaming DataFrame ``query`` against ``checkpoint``; the upgrade report as JSON."""
    with savepoint_errors():
        return str(
            _entry(spark).upgradeCheck(
                _jsession(spark), str(checkpoint), query._jdf, str(output_mode), list(maps)
            )
        )


def repair_with_query(
    spark: SparkSession, checkpoint: str, query: Any, output_mode: str, dry_run: bool,
    to_batch: int, force: bool,
) -> str:  # fmt: skip
    """Repair ``checkpoint`` with streaming DataFrame ``query`` writing the state schema files
    it lost; the rows (action, file, why) as a JSON array."""
    with savepoint_errors():
        return str(
            _entry(spark).repairWithQuery(
                _jsession(spark), str(checkpoint), query._jdf, str(output_mode), bool(dry_run),
                int(to_batch), bool(force),
            )
        )  # fmt: skip


def query_facts(spark: SparkSession, checkpoint: str, query: Any, output_mode: str) -> str:
    """What streaming DataFrame ``query`` tells of ``checkpoint``, as JSON: ``valueNames``
    (operator id -> its aggregation value column names) and ``partitionedBy`` (operator id ->
    the columns its input is hash partitioned by)."""
    with savepoint_errors():
        return str(
            _entry(spark).queryFacts(_jsession(spark), str(checkpoint), query._jdf, output_mode)
        )


def upgrade_apply(
    spark: SparkSession, checkpoint: str, target: str, query: Any, output_mode: str,
    maps: list[str], allow_drop: bool,
) -> str:  # fmt: skip
    """Write ``target`` for streaming DataFrame ``query`` from ``checkpoint``; a summary."""
    with savepoint_errors():
        return str(
            _entry(spark).upgradeApply(
                _jsession(spark), str(checkpoint), str(target), query._jdf, str(output_mode),
                list(maps), bool(allow_drop),
            )
        )  # fmt: skip


def call_procedure(
    spark: SparkSession, catalog: str, procedure: str, arguments: dict[str, str | int | bool | None]
) -> list[Row]:
    """The rows of procedure ``procedure`` of catalog ``catalog`` called with ``arguments``
    (typed values by parameter name), the same as ``CALL`` gives, called without a statement: a
    classic session only (Spark 3.5 has no ``CALL``; on 4.0 and later a statement's parse,
    analysis and collect cost about as much as a small action).

    Raises:
        SparkVersionUnsupported: a Spark Connect session of Spark 3.5.
    """
    import json

    from pyspark.sql import Row

    if is_remote(spark):
        raise SparkVersionUnsupported(
            f"calling the procedure {procedure} over Spark Connect needs Spark 4.0 or later (its "
            f"CALL statement); this server runs Spark {spark.version}: run it in a classic "
            "session (spark_savepoint.session()) on the driver's machine."
        )
    with savepoint_errors():
        answer = _entry(spark).callProcedure(
            _jsession(spark), catalog, procedure, json.dumps(arguments)
        )
    result = json.loads(str(answer))
    columns = result["columns"]
    return [Row(**dict(zip(columns, values, strict=True))) for values in result["rows"]]


STATE_STORE_LOGGERS = "org.apache.spark.sql.execution.streaming.state"
"""Spark's state stores, which warn on every read outside a running query (no state store
coordinator; "The state for version N doesn't exist in loadedMaps")."""


def quiet_state_store_warnings(spark: SparkSession) -> None:
    """Log only errors of Spark's state stores in ``spark``'s driver: a session that reads
    checkpoints would print two warnings a statement, none of them actionable."""
    jvm = _jvm(spark)
    level = jvm.org.apache.logging.log4j.Level.ERROR
    jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(STATE_STORE_LOGGERS, level)


def exempt_from_read_only(spark: SparkSession) -> None:
    """Let ``spark`` (one session of an application) write despite ``spark.savepoint.readOnly``."""
    _entry(spark).exemptFromReadOnly(_jsession(spark))


def view_text(spark: SparkSession, database: str, name: str) -> str | None:
    """The stored SQL of view ``spark_catalog.<database>.<name>``, None when there is none."""
    jvm = _jvm(spark)
    ident = jvm.org.apache.spark.sql.catalyst.TableIdentifier(
        name, jvm.scala.Some(database), jvm.scala.Some("spark_catalog")
    )
    try:
        text = _jsession(spark).sessionState().catalog().getTableMetadata(ident).viewText()
    except Exception:
        return None
    return str(text.get()) if text.isDefined() else None


def database_property(spark: SparkSession, database: str, key: str) -> str | None:
    """Property ``key`` of database ``spark_catalog.<database>``, None when unset or gone."""
    try:
        meta = _jsession(spark).sessionState().catalog().getDatabaseMetadata(database)
    except Exception:
        return None
    value = meta.properties().get(key)
    return str(value.get()) if value.isDefined() else None


def start_thrift_server(spark: SparkSession) -> Callable[[], None]:
    """Start HiveServer2 inside ``spark``'s driver (settings already on the session); returns
    the function that stops it. Refusals become one-line JDBC errors in this JVM from now on
    (``server.JdbcErrors``)."""
    errors = _jvm(spark).dev.sparksavepoint.server.JdbcErrors
    errors.serve()
    server_class = _jvm(spark).org.apache.spark.sql.hive.thriftserver.HiveThriftServer2
    server = server_class.startWithContext(_jsession(spark).sqlContext())
    errors.install(server)
    return server.stop  # type: ignore[no-any-return]


def start_connect_server(spark: SparkSession) -> Callable[[], None]:
    """Start Spark's Connect service (gRPC) inside ``spark``'s driver, on the address and port
    of the application's ``spark.connect.grpc.binding.*`` settings; returns the function that
    stops it."""
    jvm = _jvm(spark)
    service = jvm.org.apache.spark.sql.connect.service.SparkConnectService
    service.start(_jsession(spark).sparkContext())
    none = jvm.scala.Option.empty()
    return lambda: service.stop(none, none)


def use_password_file(spark: SparkSession, path: str) -> None:
    """Make the CUSTOM authentication of a HiveServer2 started in ``spark``'s driver check
    logins against ``path`` with the jar's ``PasswordFileAuthenticator``. System properties:
    HiveServer2 builds its CUSTOM provider per login from a new HiveConf, which reads only those
    (and hive-site.xml)."""
    system = _jvm(spark).java.lang.System
    system.setProperty("hive.server2.custom.authentication.class", PASSWORD_AUTHENTICATOR_CLASS)
    system.setProperty(PASSWORD_FILE_PROPERTY, path)


def jdbc_round_trip(
    spark: SparkSession, url: str, user: str = "", password: str | None = None
) -> None:
    """Open a JDBC connection to ``url`` (as ``user`` with ``password``, if given) from the
    driver and list its schemas."""
    jvm = _jvm(spark)
    jvm.java.lang.Class.forName("org.apache.hive.jdbc.HiveDriver")
    connection = jvm.java.sql.DriverManager.getConnection(url, user, password or "")
    try:
        connection.getMetaData().getSchemas().close()
    finally:
        connection.close()


def arm_crash_point(spark: SparkSession, point: str) -> None:
    """Make the driver halt (as abruptly as ``kill -9``) when an edit reaches ``point``: for
    crash tests only (points: claimed, planned, state, state-committed, committed,
    rolled-back-state)."""
    _jvm(spark).java.lang.System.setProperty(CRASH_POINT_PROPERTY, point)


def snapshot_crash_points(spark: SparkSession, folder: str, snapshots: str | None) -> None:
    """Make every crash point an edit or restore reaches copy the local checkpoint ``folder``
    into ``snapshots/<nn>-<point>`` (what a kill there would leave) and go on; ``None`` turns
    it off. For crash tests only."""
    system = _jvm(spark).java.lang.System
    if snapshots is None:
        system.clearProperty(CRASH_SNAPSHOTS_PROPERTY)
    else:
        system.setProperty(CRASH_SNAPSHOTS_PROPERTY, f"{folder}={snapshots}")


def driver_process(spark: SparkSession) -> tuple[str, int]:
    """``(host name, pid)`` of the driver JVM, as an edit's claim records them."""
    jvm = _jvm(spark)
    return (str(jvm.java.net.InetAddress.getLocalHost().getHostName()),
            int(jvm.java.lang.ProcessHandle.current().pid()))  # fmt: skip


def rewrite_state_with_spark(spark: SparkSession, checkpoint: str, batch: int) -> None:
    """Spark's own ``StateRewriter`` copying every store from ``batch`` to ``batch + 1``
    (Spark 4.1+): the baseline the write benchmark compares an edit against."""
    jvm, jspark = _jvm(spark), _jsession(spark)
    none = jvm.scala.Option.empty()
    rewriter = jvm.org.apache.spark.sql.execution.streaming.state.StateRewriter(
        jspark, batch, batch + 1, checkpoint, jspark.sessionState().newHadoopConf(),
        none, none, none)  # fmt: skip
    rewriter.run()
