"""Dry runs of edits: what a write into a state table would add, change and remove, computed by
the write's own tasks on read-only stores, without claiming a batch or writing a byte::

    from spark_savepoint import dry_run
    plan = dry_run(spark, "DELETE FROM savepoint.agg_0.default WHERE user = 'alice'")
    print(plan.summary)   # savepoint: dry run of agg_0.default: 0 added, 0 changed, 1 removed ...
    print(plan.samples)   # ['[alice]: [2,17] -> (removed)']

SQL scripts are split into statements with sqlglot (Spark dialect); a script that does not
parse fails before anything runs, naming the line and column (``split_statements``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments, SqlParseError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DRY_RUN_CONF = "spark.savepoint.write.dryRun"
"""The session setting that makes a write into a state table a dry run (the JVM reads it)."""

WRITES = (exp.Insert, exp.Delete, exp.Update, exp.Merge)
"""The statements a dry run takes."""


@dataclass(frozen=True)
class DryRun:
    """What one write would do: the batch it would commit and the entries it would add, change
    and remove, with a few of them as ``key: before -> after``."""

    checkpoint: str
    table: str
    batch_id: int
    added: int
    changed: int
    removed: int
    samples: list[str] = field(default_factory=list)
    summary: str = ""

    @property
    def unchanged(self) -> bool:
        """True when the write would change nothing (and commit no batch)."""
        return self.added + self.changed + self.removed == 0


def split_statements(script: str) -> list[str]:
    """The statements of a SQL script (Spark dialect), each as SQL text.

    >>> split_statements("DELETE FROM sp.agg_0.default WHERE user = 'a'; SELECT 1")
    ["DELETE FROM sp.agg_0.default WHERE user = 'a'", 'SELECT 1']

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
    return [statement.sql(dialect="spark") for statement in parsed if statement is not None]


def dry_run(spark: SparkSession, statement: str) -> DryRun:
    """Run ``statement`` (INSERT, INSERT OVERWRITE, DELETE, UPDATE or MERGE INTO on a
    ``savepoint.<uid>.<state>`` table) as a dry run: the write's own checks run (keys, types,
    partitions, a running query), and its tasks compare the rows with the state instead of
    writing them.

    Raises:
        BadArguments: the statement is not one write into a state table of a savepoint catalog.
        SavepointError: whatever the write itself would refuse with (as ``savepoint_errors``).
    """
    parsed = _one_write(statement)
    _check_target(spark, parsed)
    bridge.forget_dry_run(spark)
    with bridge.savepoint_errors(), _setting(spark, DRY_RUN_CONF, "true"):
        spark.sql(statement)
    report = bridge.last_dry_run(spark)
    if report is None:
        raise BadArguments(f"{statement!r} wrote into no state table; nothing was written.")
    return DryRun(**report)


def dry_run_script(spark: SparkSession, script: str) -> str:
    """Dry runs of every write in a SQL script, as text for a terminal: each statement, what it
    would do and its samples. ``USE`` statements run; other statements are skipped. The whole
    script is parsed first. Each write is planned against the state as it is (the script's
    earlier writes are not applied: nothing is).

    Raises:
        SqlParseError: the script does not parse; nothing ran.
    """
    lines = []
    for statement in split_statements(script):
        lines.append(statement)
        parsed = sqlglot.parse_one(statement, read="spark")
        if isinstance(parsed, exp.Use):
            spark.sql(statement)
        elif isinstance(parsed, WRITES):
            planned = dry_run(spark, statement)
            lines.append(f"  {planned.summary}")
            lines += [f"    {sample}" for sample in planned.samples]
        else:
            lines.append("  skipped: not a write")
    return "\n".join(lines)


def _one_write(statement: str) -> exp.Expression:
    parsed = [p for p in sqlglot.parse(statement, read="spark") if p is not None]
    if len(parsed) != 1 or not isinstance(parsed[0], WRITES):
        raise BadArguments(
            f"a dry run takes one INSERT, DELETE, UPDATE or MERGE statement, not {statement!r};"
            " nothing was run."
        )
    return parsed[0]


def _check_target(spark: SparkSession, write: exp.Expression) -> None:
    """The written table must be in a savepoint catalog: a dry run must not write elsewhere."""
    table = write.this
    while isinstance(table, exp.Schema):  # INSERT INTO t (a, b) ...
        table = table.this
    if not isinstance(table, exp.Table):
        raise BadArguments(f"cannot tell which table {write.sql('spark')!r} writes")
    catalog = table.catalog or spark.catalog.currentCatalog()
    if spark.conf.get(f"spark.sql.catalog.{catalog}", None) != bridge.CATALOG_CLASS:
        raise BadArguments(
            f"a dry run writes only into state tables of a savepoint catalog; {table.sql('spark')}"
            f" is in catalog {catalog!r}. Nothing was run."
        )


@contextmanager
def _setting(spark: SparkSession, key: str, value: str) -> Iterator[None]:
    before = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
