"""Sessions with savepoint catalogs attached, edits, empty savepoints, the ``spark-savepoint``
command line and the Thrift server. The public names are re-exported by ``spark_savepoint``::

    from spark_savepoint import session
    spark = session("/tmp/ckpt")
    spark.sql("SHOW NAMESPACES IN savepoint").show()

Errors: our entry points raise :class:`~spark_savepoint.SavepointError` subclasses
(``.error_class`` is the stable ``SAVEPOINT_*`` class); wrap ``spark.sql(...)`` in
``spark_savepoint.savepoint_errors()`` to get the same types from SQL statements.
"""

if __name__ != "spark_savepoint.sql_ext":  # e.g. ``import sql_ext`` from a source checkout
    raise ImportError(f"{__name__} is not a package of its own: import spark_savepoint.sql_ext")
