"""Spark sessions with savepoint catalogs attached. Example::

    from sql_ext import session
    spark = session("/tmp/ckpt")
    spark.sql("SHOW NAMESPACES IN savepoint").show()

Errors: our entry points raise :class:`SavepointError` subclasses (``.error_class`` is the
stable ``SAVEPOINT_*`` class); wrap ``spark.sql(...)`` in :func:`savepoint_errors` (or call
:func:`savepoint_error` on a caught exception) to get the same types from SQL statements.
"""

from catalog.errors import SavepointError, savepoint_error, savepoint_errors
from sql_ext.edits import EditReport, last_edit, recover
from sql_ext.empty import create_savepoint
from sql_ext.session import attach, catalog_conf, session, spark_conf

__all__ = [
    "EditReport",
    "SavepointError",
    "attach",
    "catalog_conf",
    "create_savepoint",
    "last_edit",
    "recover",
    "savepoint_error",
    "savepoint_errors",
    "session",
    "spark_conf",
]
