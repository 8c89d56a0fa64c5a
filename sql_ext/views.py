"""Flat views of a savepoint catalog in ``spark_catalog``, for JDBC/BI tools.

JDBC metadata calls (GetSchemas/GetTables/GetColumns) list only ``spark_catalog``, never a DSv2
catalog, so every state table ``<catalog>.<uid>.<state>`` gets a view ``<database>.<uid>_<state>``
(``agg_0_default``, ``join_0_left_keytonumvalues``) plus ``<database>.metadata``. Struct columns
are expanded recursively into typed columns named by their path (``window`` ->
``window_start``, ``window_end``); arrays and maps stay as they are (JDBC renders them as JSON
text). Names are lower case ``[a-z0-9_]``, so no client needs to quote them. Views store SQL
only: a query reads the latest committed batch.

>>> view_name("join_0", "left-keyToNumValues")
'join_0_left_keytonumvalues'
>>> flat_columns(StructType.fromJson({"type": "struct", "fields": [{"name": "window", "type": {
...     "type": "struct", "fields": [{"name": "start", "type": "timestamp", "nullable": True,
...     "metadata": {}}], }, "nullable": True, "metadata": {}}]}))
[('`window`.`start`', 'window_start')]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import sqlglot
from pyspark.sql.types import StructType
from sqlglot import expressions as exp

from spark_savepoint.catalog import bridge

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

METADATA_VIEW = "metadata"
_UNSAFE = re.compile(r"[^a-z0-9_]")
_VIEW_NAME_SQL = "lower(regexp_replace(concat(uid, '_', state), '[^A-Za-z0-9_]', '_'))"
"""The same rule as :func:`view_name`, in SQL (for the metadata view's ``view_name`` column)."""


def safe_name(name: str) -> str:
    """``name`` as a lower-case identifier that needs no quoting (``1x`` -> ``c_1x``)."""
    safe = _UNSAFE.sub("_", name.lower())
    return f"c_{safe}" if not safe or safe[0].isdigit() else safe


def view_name(uid: str, state: str) -> str:
    """The view of state table ``<catalog>.<uid>.<state>``."""
    return safe_name(f"{uid}_{state}")


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def flat_columns(schema: StructType) -> list[tuple[str, str]]:
    """``(expression, column name)`` for every leaf of ``schema``, structs expanded by path;
    a name already taken gets a ``_2``, ``_3``... suffix."""
    columns: list[tuple[str, str]] = []
    taken: set[str] = set()

    def walk(struct: StructType, path: list[str]) -> None:
        for field in struct.fields:
            here = [*path, field.name]
            if isinstance(field.dataType, StructType):
                walk(field.dataType, here)
                continue
            name, n = safe_name("_".join(here)), 1
            while name in taken:
                n += 1
                name = safe_name(f"{'_'.join(here)}_{n}")
            taken.add(name)
            columns.append((".".join(map(_quote, here)), name))

    walk(schema, [])
    return columns


def select_sql(table: str, schema: StructType) -> str:
    """``SELECT`` of ``table`` with its columns flattened."""
    items = ", ".join(
        expr if expr == _quote(name) else f"{expr} AS {name}" for expr, name in flat_columns(schema)
    )
    return f"SELECT {items} FROM {table}"


def view_statements(spark: SparkSession, catalog: str, database: str | None = None) -> list[str]:
    """The ``CREATE OR REPLACE VIEW`` statements for every state table of ``catalog`` and its
    metadata (reads metadata and schema files only: no Spark job)."""
    database = safe_name(database or catalog)
    target = f"spark_catalog.{_quote(database)}"  # a name like `join` is a keyword
    metadata = spark.table(f"{catalog}.{METADATA_VIEW}")
    statements = [
        f"CREATE OR REPLACE VIEW {target}.{_quote(METADATA_VIEW)} AS SELECT *, "
        f"concat('{database}.', {_VIEW_NAME_SQL}) AS view_name FROM {catalog}.{METADATA_VIEW}"
    ]
    for row in metadata.select("uid", "state", "table_name").collect():
        table = f"{catalog}.{_quote(row.uid)}.{_quote(row.state)}"
        select = select_sql(table, spark.table(table).schema)
        statements.append(
            f"CREATE OR REPLACE VIEW {target}.{_quote(view_name(row.uid, row.state))} AS {select}"
        )
    return statements


def sync_views(spark: SparkSession, catalog: str, database: str | None = None) -> list[str]:
    """Create or replace the views of ``catalog`` in ``spark_catalog.<database>`` (default: the
    catalog's name) and drop views there that no longer match a state table.

    Returns the view names, ``metadata`` first.
    """
    database = safe_name(database or catalog)
    statements = view_statements(spark, catalog, database)
    spark.sql(f"CREATE DATABASE IF NOT EXISTS spark_catalog.{database}")
    wanted = [_created_view(statement) for statement in statements]
    existing = {row.viewName for row in spark.sql(f"SHOW VIEWS IN spark_catalog.{database}")
                .collect() if not row.isTemporary}  # fmt: skip
    for statement, name in zip(statements, wanted, strict=True):
        if name not in existing or not _unchanged(
            bridge.view_text(spark, database, name), statement
        ):
            spark.sql(statement)
    for stale in existing - set(wanted):
        spark.sql(f"DROP VIEW IF EXISTS spark_catalog.{database}.{stale}")
    return wanted


def _created_view(statement: str) -> str:
    """The view a ``CREATE VIEW`` statement creates (its last name part)."""
    return str(_parse(statement).this.name)


def _unchanged(stored: str | None, statement: str) -> bool:
    """Whether a view's stored SQL is the query of ``statement`` (compared as parsed trees,
    so spacing and quoting do not matter)."""
    return stored is not None and _canonical(_parse(stored)) == _canonical(
        _parse(statement).expression
    )


def _parse(sql: str) -> exp.Expression:
    tree = sqlglot.parse_one(sql, read="spark")
    assert isinstance(tree, exp.Expression), sql
    return tree


def _canonical(tree: exp.Expression) -> str:
    return tree.sql(dialect="spark", identify=True)
