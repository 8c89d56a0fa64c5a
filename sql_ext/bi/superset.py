"""Superset's engine spec for ``savepoint://`` (registered as a ``superset.db_engine_specs`` entry
point; only Superset imports it). Spark's dates and functions as for ``hive://``; views listed
by the dialect, since Superset's Hive spec reads column 0 of ``SHOW VIEWS`` (Spark's namespace);
SQL that Superset writes is written in Spark's dialect (sqlglot's), not in ANSI's double quotes.
"""

from __future__ import annotations

from typing import Any

from sqlglot import Dialects
from superset.db_engine_specs.spark import SparkEngineSpec

try:  # Superset 5+ renders SQL with sqlglot, in the dialect named for the engine
    from superset.sql.parse import SQLGLOT_DIALECTS

    SQLGLOT_DIALECTS.setdefault("savepoint", Dialects.SPARK)
except ImportError:  # an older Superset: SQL compiled by the SQLAlchemy dialect alone
    pass


class SavepointEngineSpec(SparkEngineSpec):
    """Superset's "Apache Spark SQL" engine for the ``savepoint://`` dialect."""

    engine = "savepoint"
    engine_name = "Spark streaming state (spark-savepoint)"
    drivers = {"pyhive": "PyHive over the spark-savepoint Thrift server"}
    default_driver = "pyhive"
    sqlalchemy_uri_placeholder = "savepoint://user:password@host:10000/default?auth=CUSTOM"

    @classmethod
    def get_view_names(cls, database: Any, inspector: Any, schema: str | None) -> set[str]:
        return set(inspector.get_view_names(schema))
