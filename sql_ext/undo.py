"""Undo an edit: commit its inverse as a new batch (``dev.sparksavepoint.actions.UndoEdit``,
through the procedure ``undo``). The edit's changes are read back (``savepoint_diff`` of the
batch before it and its own); each state table it changed gets them taken back in one
transaction: entries with a key of their own by one MERGE (inserted entries deleted, deleted
ones inserted, changed ones set back), rows that repeat their key (list elements, a join side's
rows) by setting each key the edit touched back to its rows before the edit. A query that ran
since keeps its later batches; where a later batch changed what the edit changed, undo is
refused (``UndoConflict``, naming the keys) unless ``force``::

    from spark_savepoint import undo
    undo(spark, "/data/ckpt")            # the last edit
    undo(spark, "/data/ckpt", batch=7)   # edit batch 7 (see <catalog>.query.edits)

Undoing an undo brings the edit back: an undo is an edit like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.edits import StatementsRun

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class Undo(StatementsRun):
    """What undoing an edit batch did: the statements of its inverse, what each would change
    (``planned``, a dry run) or the commit (``report``), and the last line of the outcome."""

    batch_id: int = -1
    """The edit batch undone."""


def undo(
    spark: SparkSession,
    path: str,
    batch: int | None = None,
    *,
    force: bool = False,
    dry_run: bool = False,
) -> Undo:
    """Undo edit batch ``batch`` (default: the last edit) of the checkpoint at ``path`` by
    committing its inverse as a new batch; with ``dry_run``, only plan it. The procedure
    ``CALL <catalog>.system.undo([batch_id, force, dry_run])`` does the work (in spark-sql,
    the Thrift server and Spark Connect too).

    Raises:
        NotAnEdit: ``batch`` is no batch an edit committed (the query's own batches are
            undone by ``repair --to-batch``).
        UndoConflict: a batch after it changed keys the edit changed (unless ``force``: the
            keys are set back to before the edit, their later changes lost).
    """
    rows = procedures.call_rows(
        spark, path, "undo", batch_id=-1 if batch is None else int(batch), force=force,
        dry_run=dry_run,
    )  # fmt: skip
    return Undo.of(spark, rows, dry_run, batch_id=int(rows[-1].batch_id))


def describe_undo(
    spark: SparkSession,
    path: str,
    batch: int | None = None,
    *,
    force: bool = False,
    dry_run: bool = False,
) -> str:
    """``spark-savepoint undo``: the edit batch, the statements that take it back, then the
    commit (or, with ``dry_run``, what each would change)."""
    done = undo(spark, path, batch, force=force, dry_run=dry_run)
    return "\n".join([f"undo of edit batch {done.batch_id} of '{path}':", *done.lines()])
