"""A SQLAlchemy dialect for the Spark Thrift server: PyHive's Hive dialect, made right for Spark.

PyHive's ``hive://`` dialect reads Hive's answers, and Spark answers differently: ``SHOW TABLES``
is ``(namespace, tableName, isTemporary)``, so PyHive lists every table under its schema's name;
``DESCRIBE <text>`` also describes a *query*, so ``has_table("SELECT ...")`` is true and pandas
takes a query for a table name. ``savepoint://`` (registered as an entry point) reads the name
columns, tells views from tables, quotes names, and knows a table only by its listing::

    from sqlalchemy import create_engine, inspect
    engine = create_engine("savepoint://127.0.0.1:10000/default")
    inspect(engine).get_view_names("savepoint_agg_0")  # -> ['default']
    pandas.read_sql("SELECT * FROM savepoint.agg_0.default", engine)

With a password: ``savepoint://analyst:secret@host:10000/default?auth=CUSTOM``.
"""

from __future__ import annotations

import re
from typing import Any

from pyhive import hive
from pyhive.sqlalchemy_hive import HiveDialect, HiveTimestamp, _type_map
from sqlalchemy import exc, text

_type_map.setdefault("timestamp_ntz", HiveTimestamp)  # Spark's local timestamps read alike

_MISSING = re.compile(r"TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND|Table or view not found")
"""Spark's error classes (and Spark 3's message) for a table or schema that is not there."""

_NAME_COLUMNS = {"TABLES": "tableName", "VIEWS": "viewName"}


class SavepointDialect(HiveDialect):
    """``savepoint://host:port/database``: PyHive's Thrift connection, Spark's answers."""

    name = "savepoint"
    driver = "pyhive"
    supports_statement_cache = False

    @classmethod
    def import_dbapi(cls) -> Any:  # SQLAlchemy 2 (1.4 calls the inherited ``dbapi``)
        return hive

    def get_table_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        """The tables of ``schema``, not its views (Spark's ``SHOW TABLES`` lists both)."""
        views = set(self._names(connection, "VIEWS", schema))
        return [name for name in self._names(connection, "TABLES", schema) if name not in views]

    def get_view_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        return self._names(connection, "VIEWS", schema)

    def has_table(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> bool:
        """True only for a table or view listed in ``schema``: never for the text of a query."""
        wanted = table_name.lower()
        return any(name.lower() == wanted for name in self._names(connection, "TABLES", schema))

    def _names(self, connection: Any, kind: str, schema: str | None) -> list[str]:
        """The names in ``SHOW TABLES``/``SHOW VIEWS`` of ``schema``, temporary views left out."""
        query = f"SHOW {kind}"
        if schema:
            query += " IN " + self.identifier_preparer.quote_identifier(schema)
        result = connection.execute(text(query))
        columns = list(result.keys())
        name = columns.index(_NAME_COLUMNS[kind]) if _NAME_COLUMNS[kind] in columns else 0
        temporary = columns.index("isTemporary") if "isTemporary" in columns else None
        return [
            row[name]
            for row in result
            if temporary is None or str(row[temporary]).lower() not in ("true", "1")
        ]

    def _get_table_columns(self, connection: Any, table_name: str, schema: str | None) -> list:
        """``DESCRIBE`` the quoted name (a bare one would describe a query); a missing table
        raises :class:`~sqlalchemy.exc.NoSuchTableError`."""
        quote = self.identifier_preparer.quote_identifier
        full_name = ".".join(quote(part) for part in (schema, table_name) if part)
        try:
            return connection.execute(text(f"DESCRIBE {full_name}")).fetchall()
        except exc.DBAPIError as error:
            if _MISSING.search(str(error)):
                raise exc.NoSuchTableError(full_name) from None
            raise
