"""BI clients of the Thrift server: :mod:`.dialect`, a SQLAlchemy dialect (``savepoint://``) for
pandas, Superset and other SQLAlchemy tools, and :mod:`.superset`, its Superset engine spec.

Neither imports pyspark or starts Java: install the project into a BI tool's environment with
``pip install --no-deps spark-savepoint`` and ``pip install pyhive thrift thrift-sasl
pure-sasl`` (PyPI's PyHive 0.7.0 has no ``hive_pure_sasl`` extra; ``pyhive[hive]`` needs a C
compiler).
"""
