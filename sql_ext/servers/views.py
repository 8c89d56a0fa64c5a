"""Flat views of a savepoint catalog in ``spark_catalog``, for JDBC/BI tools.

JDBC metadata calls (GetSchemas/GetTables/GetColumns) list only ``spark_catalog``, never a DSv2
catalog. So the tree ``<catalog>.<uid>.<state>`` is mirrored there: one database per uid,
``<catalog>_<uid>``, with one view per state (``savepoint_agg_0.default``,
``savepoint_join_0.left_keytonumvalues``), and the catalog's ``metadata`` table as
``<catalog>_metadata.metadata``. No database is named like the catalog, so the catalog's own
names (``savepoint.agg_0.default``) keep resolving to it. Struct columns are expanded
recursively into typed columns named by their path (``window`` -> ``window_start``,
``window_end``); arrays and maps stay as they are (JDBC renders them as JSON text). A state
table's view ends with its metadata column ``partition_id`` (which ``SELECT *`` leaves out).
Names are lower case ``[a-z0-9_]``, so no client needs to quote them. Views store SQL only: a
query reads the latest committed batch.

>>> view_database("savepoint", "join_0"), view_name("left-keyToNumValues")
('savepoint_join_0', 'left_keytonumvalues')
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
PARTITION_ID = "partition_id"
"""The metadata column of every state table: the state partition of its row."""
OPERATOR_STATE = "operator state"
"""The ``state_kind`` of the query-log tables in ``<catalog>.metadata`` (no ``partition_id``)."""
OWNER_PROPERTY = "spark_savepoint.catalog"
"""Database property naming the catalog whose views a database holds (only those are dropped)."""
_UNSAFE = re.compile(r"[^a-z0-9_]")


def _safe_sql(expression: str) -> str:
    """The rule of :func:`safe_name`, in SQL."""
    safe = f"regexp_replace(lower({expression}), '[^a-z0-9_]', '_')"
    return f"regexp_replace({safe}, '^([0-9]|$)', 'c_$1')"


def _view_name_sql(catalog: str) -> str:
    """Each metadata row's view as ``<database>.<view>``, in SQL (the metadata view's
    ``view_name``)."""
    prefix = catalog.replace("'", "\\'") + "_"
    database = _safe_sql(f"concat('{prefix}', uid)")
    return f"concat({database}, '.', {_safe_sql('state')})"


def safe_name(name: str) -> str:
    """``name`` as a lower-case identifier that needs no quoting (``1x`` -> ``c_1x``)."""
    safe = _UNSAFE.sub("_", name.lower())
    return f"c_{safe}" if not safe or safe[0].isdigit() else safe


def view_database(catalog: str, uid: str) -> str:
    """The database holding the views of ``<catalog>.<uid>``'s states."""
    return safe_name(f"{catalog}_{uid}")


def metadata_database(catalog: str) -> str:
    """The database holding the view of ``<catalog>.metadata``."""
    return view_database(catalog, METADATA_VIEW)


def view_name(state: str) -> str:
    """The view of a state table, in its uid's database."""
    return safe_name(state)


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


def state_schema(spark: SparkSession, table: str) -> StructType:
    """The columns of state table ``table`` a view shows: its own, then ``partition_id``."""
    return spark.table(table).select("*", PARTITION_ID).schema


def view_statements(spark: SparkSession, catalog: str) -> dict[str, list[str]]:
    """Per database, the ``CREATE OR REPLACE VIEW`` statements of ``catalog``'s views: its
    metadata, then every state table (reads metadata and schema files only: no Spark job)."""
    meta = metadata_database(catalog)
    view_of = _view_name_sql(catalog)
    statements = {meta: [
        f"CREATE OR REPLACE VIEW spark_catalog.{_quote(meta)}.{_quote(METADATA_VIEW)} AS "
        f"SELECT *, {view_of} AS view_name FROM {_quote(catalog)}.{METADATA_VIEW}"
    ]}  # fmt: skip
    metadata = spark.table(f"{_quote(catalog)}.{METADATA_VIEW}")
    for row in metadata.select("uid", "state", "state_kind").collect():
        table = f"{_quote(catalog)}.{_quote(row.uid)}.{_quote(row.state)}"
        if row.state_kind == OPERATOR_STATE:
            select = select_sql(table, spark.table(table).schema)
        else:
            select = select_sql(table, state_schema(spark, table))
        database = view_database(catalog, row.uid)
        target = f"spark_catalog.{_quote(database)}.{_quote(view_name(row.state))}"
        statements.setdefault(database, []).append(f"CREATE OR REPLACE VIEW {target} AS {select}")
    return statements


def create_database_sql(catalog: str, database: str) -> str:
    """``CREATE DATABASE`` of a database of ``catalog``'s views, marked as its own."""
    return (
        f"CREATE DATABASE IF NOT EXISTS spark_catalog.{_quote(database)} COMMENT "
        f"'spark-savepoint views of catalog {catalog}' WITH DBPROPERTIES "
        f"('{OWNER_PROPERTY}' = '{catalog}')"
    )


def sync_views(spark: SparkSession, catalog: str) -> list[str]:
    """Create or replace the views of ``catalog`` (see the module's docstring); drop its views
    that no longer match a state table, and its databases of uids that are gone.

    Returns the views as ``<database>.<view>``, ``<catalog>_metadata.metadata`` first.
    """
    wanted: list[str] = []
    plan = view_statements(spark, catalog)
    for database, statements in plan.items():
        spark.sql(create_database_sql(catalog, database))
        names = [_created_view(statement) for statement in statements]
        existing = _views(spark, database)
        for statement, name in zip(statements, names, strict=True):
            if name not in existing or not _unchanged(
                bridge.view_text(spark, database, name), statement
            ):
                spark.sql(statement)
        for stale in existing - set(names):
            spark.sql(f"DROP VIEW IF EXISTS spark_catalog.{_quote(database)}.{_quote(stale)}")
        wanted += [f"{database}.{name}" for name in names]
    for database in _owned_databases(spark, catalog) - set(plan):
        spark.sql(f"DROP DATABASE IF EXISTS spark_catalog.{_quote(database)} CASCADE")
    return wanted


def _views(spark: SparkSession, database: str) -> set[str]:
    rows = spark.sql(f"SHOW VIEWS IN spark_catalog.{_quote(database)}").collect()
    return {row.viewName for row in rows if not row.isTemporary}


def _owned_databases(spark: SparkSession, catalog: str) -> set[str]:
    """The databases in ``spark_catalog`` that hold ``catalog``'s views."""
    prefix = safe_name(catalog) + "_"
    owned = set()
    for row in spark.sql("SHOW DATABASES IN spark_catalog").collect():
        name = row[0]
        if (
            name.startswith(prefix)
            and bridge.database_property(spark, name, OWNER_PROPERTY) == catalog
        ):
            owned.add(name)
    return owned


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
