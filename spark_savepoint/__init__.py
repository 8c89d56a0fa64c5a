"""spark-savepoint: a streaming query's checkpoints and savepoints as SQL tables.

One import root; the repository's folders install as its sub-packages:
``spark_savepoint.catalog`` (the JVM catalog's jar, errors and the one bridge to the JVM),
``spark_savepoint.sql_ext`` (sessions, edits, CLI, Thrift server) and ``spark_savepoint.udfs``
(bootstrap table functions). Example::

    from spark_savepoint import session
    spark = session("/tmp/ckpt")
    spark.sql("SELECT * FROM savepoint.agg_0.default").show()
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError as _NotInstalled
from importlib.metadata import version as _version
from pkgutil import extend_path
from typing import TYPE_CHECKING, Any

# From a source checkout, ``./spark_savepoint`` shadows the installed package: find the
# sub-packages (mapped from ../catalog, ../sql_ext, ../udfs) where pip installed them.
__path__ = extend_path(__path__, __name__)

try:
    __version__ = _version("spark-savepoint")
except _NotInstalled:  # imported from a source checkout that pip never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:  # the names for type checkers and IDEs
    from spark_savepoint.catalog.bridge import savepoint_error, savepoint_errors
    from spark_savepoint.catalog.errors import SavepointError
    from spark_savepoint.sql_ext.diff import (
        TableDiff,
        changes,
        describe_diff,
        diff,
        diff_tables,
    )
    from spark_savepoint.sql_ext.doctor import Finding, Verification, verify
    from spark_savepoint.sql_ext.dry_run import DryRun, dry_run
    from spark_savepoint.sql_ext.edits import EditReport, last_edit, recover
    from spark_savepoint.sql_ext.empty import create_savepoint
    from spark_savepoint.sql_ext.handle import Checkpoint
    from spark_savepoint.sql_ext.hygiene import Hygiene, Purge, describe_purge, hygiene, purge
    from spark_savepoint.sql_ext.inspection import Inspection, inspect_checkpoint
    from spark_savepoint.sql_ext.relocation import relocate
    from spark_savepoint.sql_ext.repair import RepairReport, repair, undo_repair
    from spark_savepoint.sql_ext.savepoints import (
        SavepointInfo,
        dispose_savepoint,
        list_savepoints,
        restore_savepoint,
        take_savepoint,
    )
    from spark_savepoint.sql_ext.session import attach, catalog_conf, session, spark_conf
    from spark_savepoint.sql_ext.statements import split_statements
    from spark_savepoint.sql_ext.transaction import Transaction, edit
    from spark_savepoint.sql_ext.undo import Undo, describe_undo, undo
    from spark_savepoint.sql_ext.upgrade import (
        UpgradeReport,
        upgrade_apply,
        upgrade_check,
    )
    from spark_savepoint.udfs import (
        bootstrap_transform_with_state,
        group_state_bootstrap,
        transform_with_state_bootstrap,
    )

_EXPORTS: dict[str, str] = {
    "Checkpoint": "spark_savepoint.sql_ext.handle",
    "DryRun": "spark_savepoint.sql_ext.dry_run",
    "EditReport": "spark_savepoint.sql_ext.edits",
    "Finding": "spark_savepoint.sql_ext.doctor",
    "Hygiene": "spark_savepoint.sql_ext.hygiene",
    "Inspection": "spark_savepoint.sql_ext.inspection",
    "Purge": "spark_savepoint.sql_ext.hygiene",
    "RepairReport": "spark_savepoint.sql_ext.repair",
    "SavepointError": "spark_savepoint.catalog.errors",
    "SavepointInfo": "spark_savepoint.sql_ext.savepoints",
    "TableDiff": "spark_savepoint.sql_ext.diff",
    "Transaction": "spark_savepoint.sql_ext.transaction",
    "Undo": "spark_savepoint.sql_ext.undo",
    "UpgradeReport": "spark_savepoint.sql_ext.upgrade",
    "Verification": "spark_savepoint.sql_ext.doctor",
    "attach": "spark_savepoint.sql_ext.session",
    "bootstrap_transform_with_state": "spark_savepoint.udfs",
    "catalog_conf": "spark_savepoint.sql_ext.session",
    "changes": "spark_savepoint.sql_ext.diff",
    "create_savepoint": "spark_savepoint.sql_ext.empty",
    "describe_diff": "spark_savepoint.sql_ext.diff",
    "describe_purge": "spark_savepoint.sql_ext.hygiene",
    "describe_undo": "spark_savepoint.sql_ext.undo",
    "diff": "spark_savepoint.sql_ext.diff",
    "diff_tables": "spark_savepoint.sql_ext.diff",
    "dispose_savepoint": "spark_savepoint.sql_ext.savepoints",
    "dry_run": "spark_savepoint.sql_ext.dry_run",
    "edit": "spark_savepoint.sql_ext.transaction",
    "group_state_bootstrap": "spark_savepoint.udfs",
    "hygiene": "spark_savepoint.sql_ext.hygiene",
    "inspect_checkpoint": "spark_savepoint.sql_ext.inspection",
    "last_edit": "spark_savepoint.sql_ext.edits",
    "list_savepoints": "spark_savepoint.sql_ext.savepoints",
    "purge": "spark_savepoint.sql_ext.hygiene",
    "recover": "spark_savepoint.sql_ext.edits",
    "relocate": "spark_savepoint.sql_ext.relocation",
    "repair": "spark_savepoint.sql_ext.repair",
    "restore_savepoint": "spark_savepoint.sql_ext.savepoints",
    "savepoint_error": "spark_savepoint.catalog.bridge",
    "savepoint_errors": "spark_savepoint.catalog.bridge",
    "session": "spark_savepoint.sql_ext.session",
    "spark_conf": "spark_savepoint.sql_ext.session",
    "split_statements": "spark_savepoint.sql_ext.statements",
    "take_savepoint": "spark_savepoint.sql_ext.savepoints",
    "transform_with_state_bootstrap": "spark_savepoint.udfs",
    "undo": "spark_savepoint.sql_ext.undo",
    "undo_repair": "spark_savepoint.sql_ext.repair",
    "upgrade_apply": "spark_savepoint.sql_ext.upgrade",
    "upgrade_check": "spark_savepoint.sql_ext.upgrade",
    "verify": "spark_savepoint.sql_ext.doctor",
}
"""Each public name and the module it comes from: imported on first use, so that importing a
sub-package (the SQLAlchemy dialect in a BI tool's environment, say) starts neither pyspark nor
Java."""

__all__ = [
    "Checkpoint",
    "DryRun",
    "EditReport",
    "Finding",
    "Hygiene",
    "Inspection",
    "Purge",
    "SavepointError",
    "SavepointInfo",
    "TableDiff",
    "Transaction",
    "RepairReport",
    "Undo",
    "UpgradeReport",
    "Verification",
    "attach",
    "bootstrap_transform_with_state",
    "catalog_conf",
    "changes",
    "create_savepoint",
    "describe_diff",
    "describe_purge",
    "describe_undo",
    "diff",
    "diff_tables",
    "dispose_savepoint",
    "dry_run",
    "edit",
    "group_state_bootstrap",
    "hygiene",
    "inspect_checkpoint",
    "last_edit",
    "list_savepoints",
    "purge",
    "recover",
    "relocate",
    "repair",
    "restore_savepoint",
    "savepoint_error",
    "savepoint_errors",
    "session",
    "upgrade_apply",
    "undo",
    "undo_repair",
    "upgrade_check",
    "verify",
    "spark_conf",
    "split_statements",
    "take_savepoint",
    "transform_with_state_bootstrap",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
