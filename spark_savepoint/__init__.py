"""spark-savepoint: a streaming query's checkpoints and savepoints as SQL tables.

One import root; the repository's folders install as its sub-packages:
``spark_savepoint.catalog`` (the JVM catalog's jar, errors and the one bridge to the JVM),
``spark_savepoint.sql_ext`` (sessions, edits, CLI, Thrift server) and ``spark_savepoint.udfs``
(bootstrap table functions). Example::

    from spark_savepoint import session
    spark = session("/tmp/ckpt")
    spark.sql("SELECT * FROM savepoint.agg_0.default").show()
"""

from importlib.metadata import PackageNotFoundError as _NotInstalled
from importlib.metadata import version as _version
from pkgutil import extend_path

# From a source checkout, ``./spark_savepoint`` shadows the installed package: find the
# sub-packages (mapped from ../catalog, ../sql_ext, ../udfs) where pip installed them.
__path__ = extend_path(__path__, __name__)

try:
    __version__ = _version("spark-savepoint")
except _NotInstalled:  # imported from a source checkout that pip never installed
    __version__ = "0+unknown"

from spark_savepoint.catalog.bridge import savepoint_error, savepoint_errors  # noqa: E402
from spark_savepoint.catalog.errors import SavepointError  # noqa: E402
from spark_savepoint.sql_ext.doctor import Finding, Verification, verify  # noqa: E402
from spark_savepoint.sql_ext.dry_run import DryRun, dry_run  # noqa: E402
from spark_savepoint.sql_ext.edits import EditReport, last_edit, recover  # noqa: E402
from spark_savepoint.sql_ext.empty import create_savepoint  # noqa: E402
from spark_savepoint.sql_ext.handle import Checkpoint  # noqa: E402
from spark_savepoint.sql_ext.inspection import Inspection, inspect_checkpoint  # noqa: E402
from spark_savepoint.sql_ext.relocation import relocate  # noqa: E402
from spark_savepoint.sql_ext.repair import RepairReport, repair, undo_repair  # noqa: E402
from spark_savepoint.sql_ext.savepoints import (  # noqa: E402
    SavepointInfo,
    dispose_savepoint,
    list_savepoints,
    restore_savepoint,
    take_savepoint,
)
from spark_savepoint.sql_ext.session import attach, catalog_conf, session, spark_conf  # noqa: E402
from spark_savepoint.sql_ext.statements import split_statements  # noqa: E402
from spark_savepoint.sql_ext.transaction import Transaction, edit  # noqa: E402
from spark_savepoint.sql_ext.upgrade import (  # noqa: E402
    UpgradeReport,
    upgrade_apply,
    upgrade_check,
)
from spark_savepoint.udfs import (  # noqa: E402
    bootstrap_transform_with_state,
    group_state_bootstrap,
    transform_with_state_bootstrap,
)

__all__ = [
    "Checkpoint",
    "DryRun",
    "EditReport",
    "Finding",
    "Inspection",
    "SavepointError",
    "SavepointInfo",
    "Transaction",
    "RepairReport",
    "UpgradeReport",
    "Verification",
    "attach",
    "bootstrap_transform_with_state",
    "catalog_conf",
    "create_savepoint",
    "dispose_savepoint",
    "dry_run",
    "edit",
    "group_state_bootstrap",
    "inspect_checkpoint",
    "last_edit",
    "list_savepoints",
    "recover",
    "relocate",
    "repair",
    "restore_savepoint",
    "savepoint_error",
    "savepoint_errors",
    "session",
    "upgrade_apply",
    "undo_repair",
    "upgrade_check",
    "verify",
    "spark_conf",
    "split_statements",
    "take_savepoint",
    "transform_with_state_bootstrap",
]
