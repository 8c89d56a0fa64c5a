"""SQL statements as the edit entry points take them: scripts split with sqlglot (Spark
dialect), a parse error named by line and column before anything runs, and the check that a
statement is one write into a state table of a savepoint catalog::

    >>> split_statements("DELETE FROM sp.agg_0.default WHERE user = 'a'; SELECT 1")
    ["DELETE FROM sp.agg_0.default WHERE user = 'a'", 'SELECT 1']
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments, SqlParseError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

WRITES = (exp.Insert, exp.Delete, exp.Update, exp.Merge)
"""The statements that edit a state table."""


def split_statements(script: str) -> list[str]:
    """The statements of a SQL script (Spark dialect), each as SQL text.

    Raises:
        SqlParseError: the script does not parse (the message names line and column).
    """
    return [statement.sql(dialect="spark") for statement in parse_script(script)]


def parse_script(script: str) -> list[exp.Expression]:
    """The parsed statements of a SQL script (Spark dialect).

    Raises:
        SqlParseError: the script does not parse (the message names line and column).
    """
    try:
        parsed = sqlglot.parse(script, read="spark")
    except ParseError as error:
        where = error.errors[0] if error.errors else {}
        raise SqlParseError(
            f"line {where.get('line', '?')}, column {where.get('col', '?')}:"
            f" {where.get('description', error)}; nothing was run."
        ) from None
    except TokenError as error:
        raise SqlParseError(f"{error}; nothing was run.") from None
    return [cast(exp.Expression, statement) for statement in parsed if statement is not None]


def one_write(spark: SparkSession, statement: str, what: str) -> exp.Expression:
    """``statement`` parsed, when it is one INSERT, DELETE, UPDATE or MERGE into a table of a
    savepoint catalog (so that it cannot write elsewhere); ``what`` names the caller.

    Raises:
        BadArguments: anything else; nothing was run.
    """
    parsed = parse_script(statement)
    if len(parsed) != 1 or not isinstance(parsed[0], WRITES):
        raise BadArguments(
            f"{what} takes one INSERT, DELETE, UPDATE or MERGE statement, not {statement!r};"
            " nothing was run."
        )
    check_target(spark, parsed[0], what)
    return parsed[0]


def check_target(spark: SparkSession, write: exp.Expression, what: str) -> None:
    """The table ``write`` writes must be in a savepoint catalog.

    Raises:
        BadArguments: it is not (or cannot be told); nothing was run.
    """
    table = write.this
    while isinstance(table, exp.Schema):  # INSERT INTO t (a, b) ...
        table = table.this
    if not isinstance(table, exp.Table):
        raise BadArguments(f"cannot tell which table {write.sql('spark')!r} writes")
    catalog = table.catalog or spark.catalog.currentCatalog()
    if spark.conf.get(f"spark.sql.catalog.{catalog}", None) != bridge.CATALOG_CLASS:
        raise BadArguments(
            f"{what} writes only into state tables of a savepoint catalog;"
            f" {table.sql('spark')} is in catalog {catalog!r}. Nothing was run."
        )


@contextmanager
def setting(spark: SparkSession, key: str, value: str) -> Iterator[None]:
    """Session setting ``key`` is ``value`` inside the block, and as before after it."""
    before = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
