"""Quiet, tidy Spark processes for the CLI and the Thrift server: a log4j2 configuration (our
loggers at WARN, what each edit changed at INFO, Spark's and its libraries' logs at ERROR) and
a scratch folder that takes what Spark's embedded Hive metastore would leave in the working
folder (``derby.log``, ``metastore_db/``, ``spark-warehouse/``) and the temporary files of a
run, removed afterwards.

>>> with scratch() as folder:
...     "-Dderby.system.home=" in java_options(folder, verbose=False)
True
>>> folder.exists()
False
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from spark_savepoint.catalog import bridge

OUR_LOGGER = bridge.LOGGER

LOG4J2 = f"""\
# spark-savepoint: Spark at ERROR, {OUR_LOGGER} at WARN (spark-savepoint --verbose: defaults)
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
logger.savepoint.name = {OUR_LOGGER}
logger.savepoint.level = warn
# what each edit changed, as a plain line: "savepoint: agg_0.default: 3 entries written, ..."
logger.edits.name = {OUR_LOGGER}.edits
logger.edits.level = info
logger.edits.additivity = false
logger.edits.appenderRef.plain.ref = plain
appender.plain.type = Console
appender.plain.name = plain
appender.plain.target = SYSTEM_ERR
appender.plain.layout.type = PatternLayout
appender.plain.layout.pattern = %m%n
# explicit: in spark-sql the root level alone let Spark's state store warnings through
logger.spark.name = org.apache.spark
logger.spark.level = error
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
# Spark sets the root level of shells to their main class's level (WARN when not configured)
logger.sqlcli.name = org.apache.spark.sql.hive.thriftserver.SparkSQLCLIDriver
logger.sqlcli.level = error
logger.pyspark.name = org.apache.spark.api.python.PythonGatewayServer
logger.pyspark.level = error
# a refused write is reported as one line; Spark's "write support ... is aborting" adds nothing
logger.v2write.name = org.apache.spark.sql.execution.datasources.v2
logger.v2write.level = fatal
# the Thrift server logs each failed statement with its trace; the client receives the error
logger.thriftstatement.name = org.apache.spark.sql.hive.thriftserver.SparkExecuteStatementOperation
logger.thriftstatement.level = fatal
# a refused login: the password check logs one warning line; Thrift's SASL layer adds two traces
logger.thriftsasl.name = org.apache.thrift.transport.TSaslTransport
logger.thriftsasl.level = fatal
logger.thriftpool.name = org.apache.thrift.server.TThreadPoolServer
logger.thriftpool.level = fatal
"""


@contextmanager
def scratch(prefix: str = "spark-savepoint-") -> Iterator[Path]:
    """A temporary folder for one run, removed with everything in it afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def log_config(folder: Path) -> Path:
    """Writes the quiet log4j2 configuration into ``folder``; returns its path."""
    path = folder / "log4j2.properties"
    path.write_text(LOG4J2)
    return path


def log_options(folder: Path, *, verbose: bool) -> list[str]:
    """JVM options for the quiet logs (written into ``folder``); none when ``verbose``."""
    if verbose:
        return []
    config = log_config(folder)
    # log4j.configurationFile too: Hive's CLI re-initialises logging unless it is set
    return [f"-Dlog4j2.configurationFile={config}", f"-Dlog4j.configurationFile={config}"]


def java_options(folder: Path, *, verbose: bool) -> str:
    """Driver JVM options of a spark-sql run: Derby's files (``derby.log``, ``metastore_db/``)
    in ``folder``, and the quiet logs unless ``verbose``. (Not for the Thrift server: its
    in-memory Derby metastore fails to start when ``derby.system.home`` is set.)"""
    derby = [f"-Dderby.system.home={folder}", f"-Dderby.stream.error.file={folder / 'derby.log'}"]
    return " ".join(derby + log_options(folder, verbose=verbose))


def resources_dir(folder: Path) -> str:
    """Where Hive's sessions keep ADD JAR/FILE downloads: in ``folder``, not an empty
    ``<session id>_resources`` folder left in the system's temporary folder by every run."""
    return str(folder / "resources" / "${hive.session.id}_resources")


def spark_settings(folder: Path, *, verbose: bool) -> dict[str, str]:
    """Spark settings that keep a run's files in ``folder`` and its console quiet."""
    settings = {
        "spark.sql.warehouse.dir": str(folder / "warehouse"),
        "spark.driver.extraJavaOptions": java_options(folder, verbose=verbose),
        "spark.hadoop.hive.downloaded.resources.dir": resources_dir(folder),
    }
    if not verbose:
        settings["spark.ui.showConsoleProgress"] = "false"
    return settings
