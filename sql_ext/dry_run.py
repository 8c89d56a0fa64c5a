"""Dry runs of edits: what a write into a state table would add, change and remove, computed by
the write's own tasks on read-only stores, without claiming a batch or writing a byte::

    from spark_savepoint import dry_run
    plan = dry_run(spark, "DELETE FROM savepoint.agg_0.default WHERE user = 'alice'")
    print(plan.summary)   # savepoint: dry run of agg_0.default: 0 added, 0 changed, 1 removed ...
    print(plan.samples)   # ['[alice]: [2,17] -> (removed)']

SQL scripts are split into statements with sqlglot (Spark dialect); a script that does not
parse fails before anything runs, naming the line and column
(:func:`~spark_savepoint.sql_ext.statements.split_statements`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlglot import exp

from spark_savepoint.catalog import bridge, settings
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.statements import (
    WRITES,
    one_write,
    parse_script,
    setting,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DRY_RUN_CONF = settings.WRITE_DRY_RUN
"""The session setting that makes a write into a state table a dry run (the JVM reads it)."""


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


def dry_run(spark: SparkSession, statement: str) -> DryRun:
    """Run ``statement`` (INSERT, INSERT OVERWRITE, DELETE, UPDATE or MERGE INTO on a
    ``savepoint.<uid>.<state>`` table) as a dry run: the write's own checks run (keys, types,
    partitions, a running query), and its tasks compare the rows with the state instead of
    writing them. Also over Spark Connect (``CALL <catalog>.system.last_dry_run()``).

    Raises:
        BadArguments: the statement is not one write into a state table of a savepoint catalog.
        SavepointError: whatever the write itself would refuse with (as ``savepoint_errors``).
    """
    one_write(spark, statement, "a dry run")
    with bridge.savepoint_errors(), setting(spark, DRY_RUN_CONF, "true"):
        spark.sql(statement)
    rows = procedures.call_rows(spark, None, "last_dry_run")  # the write forgot older ones
    if not rows:
        raise BadArguments(f"{statement!r} wrote into no state table; nothing was written.")
    return DryRun(**rows[0].asDict())


def dry_run_script(spark: SparkSession, script: str) -> str:
    """Dry runs of every write in a SQL script, as text for a terminal: each statement, what it
    would do and its samples. ``USE`` statements run; other statements are skipped. The whole
    script is parsed first. Each write is planned against the state as it is (the script's
    earlier writes are not applied: nothing is).

    Raises:
        SqlParseError: the script does not parse; nothing ran.
    """
    lines = []
    for parsed in parse_script(script):
        statement = parsed.sql(dialect="spark")
        lines.append(statement)
        if isinstance(parsed, exp.Use):
            spark.sql(statement)
        elif isinstance(parsed, WRITES):
            planned = dry_run(spark, statement)
            lines.append(f"  {planned.summary}")
            lines += [f"    {sample}" for sample in planned.samples]
        else:
            lines.append("  skipped: not a write")
    return "\n".join(lines)
