"""Spark sessions with savepoint catalogs attached.

>>> from sql_ext import session          # doctest: +SKIP
>>> spark = session("/tmp/ckpt")         # doctest: +SKIP
>>> spark.sql("SHOW NAMESPACES IN savepoint").show()  # doctest: +SKIP
"""

from sql_ext.session import attach, catalog_conf, session, spark_conf

__all__ = ["attach", "catalog_conf", "session", "spark_conf"]
