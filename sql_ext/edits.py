"""What edits did, and how to finish an interrupted one.

Each INSERT, INSERT OVERWRITE or DELETE on a state table is one edit: it commits one new batch,
or none when it changed no entry. Example::

    from spark_savepoint import last_edit, session
    spark = session("/data/ckpt")
    spark.sql("DELETE FROM savepoint.agg_0.default WHERE user LIKE 'test%'")
    report = last_edit(spark)   # table 'agg_0.default', batch_id 12, written 0, removed 3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spark_savepoint.sql_ext import procedures

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession


@dataclass(frozen=True)
class EditReport:
    """One edit: the batch it committed (None when it changed nothing), its entry counts
    (``removed`` is None for an INSERT OVERWRITE that wrote the new state whole), and what to
    know of its effect (``warning``, e.g. of a watermark set back), else None."""

    checkpoint: str
    table: str
    batch_id: int | None
    written: int
    removed: int | None
    summary: str
    warning: str | None = None

    @property
    def committed(self) -> bool:
        return self.batch_id is not None


@dataclass(frozen=True)
class StatementsRun:
    """What an action made of SQL statements did (the procedures ``undo`` and ``purge``, whose
    rows are one per statement, then the outcome): the statements, what each would change
    (``planned``, a dry run) or the commit (``report``), and the outcome's line."""

    statements: list[str]
    summary: str
    report: EditReport | None = None
    planned: list[str] | None = None

    @classmethod
    def of(cls, spark: SparkSession, rows: list[Row], dry_run: bool, **extra: Any) -> Any:
        """The run the procedure's ``rows`` describe (``extra``: a subclass's own fields)."""
        steps = [r for r in rows if r.statement is not None]
        return cls(
            statements=[r.statement for r in steps],
            summary=rows[-1].summary,
            report=last_edit(spark) if steps and not dry_run else None,
            planned=[r.summary for r in steps] if steps and dry_run else None,
            **extra,
        )

    def lines(self) -> list[str]:
        """Each statement, what each would change (a dry run), then the outcome."""
        return [*(f"  {s}" for s in self.statements),
                *(f"  {p}" for p in self.planned or []), self.summary]  # fmt: skip


def last_edit(spark: SparkSession) -> EditReport | None:
    """The last edit this session made (of any checkpoint), or None before the first; also
    over Spark Connect (``CALL <catalog>.system.last_edit()``)."""
    rows = procedures.call_rows(spark, None, "last_edit")
    return EditReport(**rows[0].asDict()) if rows else None


def recover(spark: SparkSession, path: str, force: bool = False) -> str:
    """Complete the batch an interrupted edit left planned but uncommitted in checkpoint
    ``path``, without the edit (as the restarted query would); returns one line saying what it
    did. Writes do this on their own when the interrupted writer ran on this host and has
    ended; ``force=True`` is for a writer elsewhere that you know has stopped. In the folder of
    a savepoint, restore or upgrade that was killed before its commit, it removes what that
    wrote (the folder is then empty: run it again).

    Raises:
        SavepointError: ``InterruptedEdit`` (a writer that may still run claimed the batch),
        ``UnfinishedCheckpoint`` (a restore into the folder may still run),
        ``UncommittedBatch`` (a query's batch: restart the query), ``NoSuchCheckpoint``, ...
    """
    return str(procedures.call(spark, path, "recover", force=bool(force))["message"])
