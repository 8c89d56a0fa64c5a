"""Undo an edit: commit its inverse as a new batch. The edit's changes are read back
(``savepoint_diff`` of the batch before it and its own); each state table it changed gets them
taken back in one transaction (:func:`~spark_savepoint.sql_ext.transaction.edit`): entries with a
key of their own by one MERGE (inserted entries deleted, deleted ones inserted, changed ones set
back), rows that repeat their key (list elements, a join side's rows) by setting each key the
edit touched back to its rows before the edit. A query that ran since keeps its later batches;
where a later batch changed what the edit changed, undo is refused (``UndoConflict``, naming
the keys) unless ``force``::

    from spark_savepoint import undo
    undo(spark, "/data/ckpt")            # the last edit
    undo(spark, "/data/ckpt", batch=7)   # edit batch 7 (see <catalog>.query.edits)

Undoing an undo brings the edit back: an undo is an edit like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql.types import StructType

from spark_savepoint.catalog.errors import NotAnEdit, UndoConflict
from spark_savepoint.sql_ext.diff import diff, state_tables
from spark_savepoint.sql_ext.session import attach
from spark_savepoint.sql_ext.transaction import edit

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from spark_savepoint.sql_ext.dry_run import DryRun
    from spark_savepoint.sql_ext.edits import EditReport

UNDO_CATALOG = "savepoint_undo"
REPEATING_KINDS = ("list", "join_side")
"""State kinds whose rows repeat their key: undone by key, row sets restored."""
CONFLICTS_SHOWN = 5
NO_STATE_CHANGED = (
    "edit batch {batch} changed no state table (it edited the query's logs: source positions,"
    " seen files or the watermark, which undo does not take back): nothing was written"
)


@dataclass(frozen=True)
class Undo:
    """What undoing an edit batch does: the statements, and the commit (or the plan)."""

    batch_id: int
    statements: list[str]
    report: EditReport | None = None
    planned: list[DryRun] | None = None


def undo(
    spark: SparkSession,
    path: str,
    batch: int | None = None,
    *,
    force: bool = False,
    dry_run: bool = False,
    catalog: str = UNDO_CATALOG,
) -> Undo:
    """Undo edit batch ``batch`` (default: the last edit) of the checkpoint at ``path`` by
    committing its inverse as a new batch; with ``dry_run``, only plan it.

    Raises:
        NotAnEdit: ``batch`` is no batch an edit committed (the query's own batches are
            undone by ``repair --to-batch``).
        UndoConflict: a batch after it changed keys the edit changed (unless ``force``: the
            keys are set back to before the edit, their later changes lost).
    """
    attach(spark, path, catalog)
    edits = [
        r.batch_id for r in spark.sql(f"SELECT batch_id FROM `{catalog}`.query.edits").collect()
    ]
    target = _target(path, batch, edits)
    (last,) = spark.sql(
        f"SELECT max(batch_id) FROM `{catalog}`.query.batches WHERE committed"
    ).collect()[0]
    statements = []
    for listed in state_tables(spark, catalog):
        table, kind = f"`{catalog}`.`{listed.uid}`.`{listed.state}`", listed.state_kind
        changed = diff(spark, table, target - 1, target).cache()  # read once, asked thrice
        try:
            if changed.isEmpty():
                continue
            key = _key_columns(spark, table, changed, kind)
            if last > target and not force:
                _check_no_later_change(path, table, changed, diff(spark, table, target, last), key)
            statements += (_restore_rows(table, target, key) if kind in REPEATING_KINDS
                           else [_merge_back(table, target, changed, key)])  # fmt: skip
        finally:
            changed.unpersist()
    with edit(spark, dry_run=dry_run) as tx:
        for statement in statements:
            tx.sql(statement)
        planned = tx.plan() if dry_run else None
    return Undo(target, statements, tx.report, planned)


def _target(path: str, batch: int | None, edits: list[int]) -> int:
    if batch is None:
        if not edits:
            raise NotAnEdit(f"No edit was committed to checkpoint '{path}': nothing to undo.")
        return max(edits)
    if batch not in edits:
        listed = ", ".join(map(str, sorted(edits))) or "none"
        raise NotAnEdit(
            f"Batch {batch} of checkpoint '{path}' was not committed by an edit (edit batches:"
            f" {listed}): undo takes back edits; to go back before a batch of the query, use"
            f" `spark-savepoint repair {path} --to-batch N`."
        )
    return batch


def _key_columns(spark: SparkSession, table: str, changed: DataFrame, kind: str) -> list[str]:
    """The columns that tell the table's entries apart, or for rows that repeat their key the
    key's columns (from the table's ``key_columns`` property)."""
    if kind not in REPEATING_KINDS:
        return [c for c in changed.columns[1:] if c not in ("before", "after")]
    (row,) = spark.sql(f"SHOW TBLPROPERTIES {table} ('key_columns')").collect()
    return [c for c in row.value.split(",") if c]


def _check_no_later_change(
    path: str, table: str, changed: DataFrame, later: DataFrame, key: list[str]
) -> None:
    both = changed.select(*key).distinct().intersect(later.select(*key).distinct())
    keys = both.limit(CONFLICTS_SHOWN + 1).collect()
    if keys:
        shown = "; ".join(", ".join(f"{k}={r[k]}" for k in key) for r in keys[:CONFLICTS_SHOWN])
        more = " and more" if len(keys) > CONFLICTS_SHOWN else ""
        raise UndoConflict(
            f"Cannot undo the edit of {table.replace('`', '')} in checkpoint '{path}': later"
            f" batches changed the same keys ({shown}{more}). Undo with --force to set them back"
            " to before the edit (their later changes are lost), or edit them by hand."
        )


def _merge_back(table: str, batch: int, changed: DataFrame, key: list[str]) -> str:
    """One MERGE that takes ``batch``'s changes back: ``savepoint_diff`` from ``batch`` to the
    batch before it is exactly what to apply."""
    before = changed.schema["before"].dataType if "before" in changed.columns else None
    values = before.fieldNames() if isinstance(before, StructType) else []
    on = " AND ".join(f"t.`{k}` <=> d.`{k}`" for k in key)
    columns = ", ".join(f"`{c}`" for c in (*key, *values))
    inserted = ", ".join([*(f"d.`{k}`" for k in key), *(f"d.after.`{v}`" for v in values)])
    update = ", ".join(f"`{v}` = d.after.`{v}`" for v in values)
    plain = table.replace("`", "")
    return (
        f"MERGE INTO {table} t USING (SELECT * FROM savepoint_diff('{plain}', {batch},"
        f" {batch - 1})) d ON {on} WHEN MATCHED AND d.change_type = 'delete' THEN DELETE"
        + (f" WHEN MATCHED THEN UPDATE SET {update}" if values else "")
        + f" WHEN NOT MATCHED AND d.change_type <> 'delete' THEN INSERT ({columns})"
        f" VALUES ({inserted})"
    )


def _restore_rows(table: str, batch: int, key: list[str]) -> list[str]:
    """The rows of each key ``batch`` touched set back to theirs before it: deleted, then
    inserted (appended) as they were."""
    plain = table.replace("`", "")
    keys = ", ".join(f"`{k}`" for k in key)
    touched = f"(SELECT DISTINCT {keys} FROM savepoint_diff('{plain}', {batch - 1}, {batch}))"
    on = " AND ".join(f"t.`{k}` <=> d.`{k}`" for k in key)
    return [
        f"MERGE INTO {table} t USING {touched} d ON {on} WHEN MATCHED THEN DELETE",
        f"INSERT INTO {table} SELECT t.* FROM {table} VERSION AS OF {batch - 1} t"
        f" LEFT SEMI JOIN {touched} d ON {on}",
    ]


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
    lines = [f"undo of edit batch {done.batch_id} of '{path}':"]
    lines += [f"  {statement}" for statement in done.statements]
    if done.planned is not None:
        lines += [f"  {planned.summary}" for planned in done.planned]
        lines.append("dry run: nothing was written")
    elif done.report is not None:
        lines.append(done.report.summary)
    else:
        lines.append(NO_STATE_CHANGED.format(batch=done.batch_id))
    return "\n".join(lines)
