"""Spark sessions with savepoint catalogs attached. Example::

    from sql_ext import session
    spark = session("/tmp/ckpt")
    spark.sql("SHOW NAMESPACES IN savepoint").show()
"""

from sql_ext.edits import EditReport, last_edit, recover
from sql_ext.empty import create_savepoint
from sql_ext.session import attach, catalog_conf, session, spark_conf

__all__ = [
    "EditReport",
    "attach",
    "catalog_conf",
    "create_savepoint",
    "last_edit",
    "recover",
    "session",
    "spark_conf",
]
