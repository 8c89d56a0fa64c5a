"""Spark sessions with savepoint catalogs attached. Example::

    from spark_savepoint import session
    spark = session("/tmp/ckpt")
    spark.sql("SHOW NAMESPACES IN savepoint").show()

Errors: our entry points raise :class:`SavepointError` subclasses (``.error_class`` is the
stable ``SAVEPOINT_*`` class); wrap ``spark.sql(...)`` in :func:`savepoint_errors` (or call
:func:`savepoint_error` on a caught exception) to get the same types from SQL statements.
"""

if __name__ != "spark_savepoint.sql_ext":  # e.g. ``import sql_ext`` from a source checkout
    raise ImportError(f"{__name__} is not a package of its own: import spark_savepoint.sql_ext")


from spark_savepoint.catalog.bridge import savepoint_error, savepoint_errors
from spark_savepoint.catalog.errors import SavepointError
from spark_savepoint.sql_ext.edits import EditReport, last_edit, recover
from spark_savepoint.sql_ext.empty import create_savepoint
from spark_savepoint.sql_ext.session import attach, catalog_conf, session, spark_conf

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
