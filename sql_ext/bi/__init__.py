"""BI clients of the Thrift server: :mod:`.dialect`, a SQLAlchemy dialect (``savepoint://``) for
pandas, Superset and other SQLAlchemy tools, and :mod:`.superset`, its Superset engine spec.

Neither imports pyspark or starts Java: install the project into a BI tool's environment with
``pip install --no-deps spark-savepoint "pyhive[hive_pure_sasl]"``.
"""
