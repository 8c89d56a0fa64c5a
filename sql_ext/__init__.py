"""Sessions with savepoint catalogs attached, edits, empty savepoints, savepoints, upgrades and
inspection: the API's verbs, one module each, at this level (their public names are re-exported
by ``spark_savepoint``), with :mod:`.connect_client`, the same verbs from a Spark Connect client.
Two sub-packages build on them: :mod:`.cli`, the ``spark-savepoint`` command line, and
:mod:`.servers`, the Thrift and Spark Connect servers. Example::

    from spark_savepoint import session
    spark = session("/tmp/ckpt")
    spark.sql("SHOW NAMESPACES IN savepoint").show()

Errors: our entry points raise :class:`~spark_savepoint.SavepointError` subclasses
(``.error_class`` is the stable ``SAVEPOINT_*`` class); wrap ``spark.sql(...)`` in
``spark_savepoint.savepoint_errors()`` to get the same types from SQL statements.
"""

if __name__ != "spark_savepoint.sql_ext":  # e.g. ``import sql_ext`` from a source checkout
    raise ImportError(f"{__name__} is not a package of its own: import spark_savepoint.sql_ext")
