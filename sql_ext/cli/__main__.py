"""``python -m spark_savepoint.sql_ext.cli``: the same as the ``spark-savepoint`` command."""

from spark_savepoint.sql_ext.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
