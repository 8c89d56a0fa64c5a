"""The ``savepoint://`` dialect loads where BI tools run: without pyspark, Java or a server."""

from __future__ import annotations

import subprocess
import sys

NO_PYSPARK = """
import sys
sys.modules["pyspark"] = None  # any import of pyspark fails
from sqlalchemy import create_engine
import spark_savepoint
engine = create_engine("savepoint://analyst:pa%3Ass@db-host:10001/default?auth=CUSTOM")
print(type(engine.dialect).__module__, engine.dialect.name, engine.dialect.driver)
print(engine.dialect.create_connect_args(engine.url))
print(spark_savepoint.__version__ != "", "py4j" in sys.modules)
"""


def test_the_dialect_needs_no_pyspark() -> None:
    """SQLAlchemy finds the dialect by its entry point; importing ``spark_savepoint`` imports
    none of its verbs until one is used."""
    result = subprocess.run([sys.executable, "-W", "error", "-c", NO_PYSPARK],
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "spark_savepoint.sql_ext.bi.dialect savepoint pyhive",
        "([], {'host': 'db-host', 'port': 10001, 'username': 'analyst', 'password': 'pa:ss', "
        "'database': 'default', 'auth': 'CUSTOM'})",
        "True False",
    ]


def test_public_names_import_on_first_use() -> None:
    import spark_savepoint

    assert set(spark_savepoint.__all__) == set(spark_savepoint._EXPORTS)
    assert spark_savepoint.session.__module__ == "spark_savepoint.sql_ext.session"
    assert "session" in dir(spark_savepoint)
