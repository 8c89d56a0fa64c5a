"""The in-process servers over savepoint catalogs, started by ``spark-savepoint thriftserver``
and ``connect``.

- :mod:`.thrift`: a Spark Thrift (HiveServer2) server for JDBC and BI tools, with
  :mod:`.views`, the flat views its clients' schema browsers can list;
- :mod:`.connect`: a Spark Connect server for PySpark clients (the client side of the Python
  API is :mod:`spark_savepoint.sql_ext.connect_client`);
- :mod:`.access`: read-only unless ``allow_writes``, the one rule both follow;
- :mod:`.credentials`: who gets in (secret files, loopback binds);
- :mod:`.lifecycle`: a free port, SIGINT/SIGTERM, waiting for connections, stopping quietly.
"""
