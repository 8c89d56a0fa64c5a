"""``repair``: a damaged checkpoint brought back to one the query restarts on, as one change
that ``undo_repair`` takes back byte for byte.

``CALL <catalog>.system.repair(...)`` (``dev.sparksavepoint.doctor.RepairPlan`` and ``Repair``)
plans file-level steps from the doctor's findings: roll back to the last committed batch whose
state loads (or ``to_batch``), remove broken snapshots the version builds without, damaged state
files the kept batch does not need, killed writers' temporary files and offsets planned past
the one uncommitted batch, and rewrite stale checksum files of logs. It keeps every file it
changes in ``_savepoint/repairs/<id>/`` first. ``dry_run`` only plans. What it cannot fix (a
missing ``metadata``, disagreeing settings) comes back as ``by_hand``.

>>> RepairReport((RepairStep("remove", "commits/2", "rolled back"),), (), "s").changed
True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.connect_client import local_only

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class RepairStep:
    """One file-level step: ``remove`` or ``rewrite checksum`` a file (relative to the
    checkpoint), and why; ``by hand`` for a finding the repair leaves to you."""

    action: str
    file: str | None
    why: str


@dataclass(frozen=True)
class RepairReport:
    """What ``repair`` did (or, as a dry run, would do)."""

    steps: tuple[RepairStep, ...]
    by_hand: tuple[RepairStep, ...]
    summary: str
    dry_run: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.steps) and not self.dry_run

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def repair(
    spark: SparkSession,
    path: str,
    dry_run: bool = False,
    to_batch: int | None = None,
    force: bool = False,
    query: DataFrame | None = None,
    output_mode: str = "append",
) -> RepairReport:
    """Repair the checkpoint at ``path`` (``dry_run``: only say how). ``to_batch``: roll back to
    that committed batch, not to the last one whose state loads. ``force``: also when its query
    looks alive (you know it is stopped). ``query``: the streaming DataFrame of the query that
    writes the checkpoint (with its ``output_mode``): state schema files the checkpoint lost are
    written as its plan writes them (planned with the checkpoint's settings, no input read).

    >>> repair(spark, "/data/ckpt").summary  # doctest: +SKIP
    '/data/ckpt: roll back from batch 4 to batch 3, 9 file(s) removed, 0 checksum(s) ...'

    Raises:
        SavepointError: ``QueryAlive``, ``RepairRefused`` (an earlier repair did not finish),
            ``NoSuchBatch``, ``CorruptFile`` (no committed batch's state loads).
    """
    batch = -1 if to_batch is None else to_batch
    if query is not None:
        rows = _repair_with_query(spark, path, query, output_mode, dry_run, batch, force)
    else:
        rows = [
            (r.action, r.file, r.why)
            for r in procedures.call_rows(
                spark, path, "repair", dry_run=dry_run, to_batch=batch, force=force
            )
        ]
    steps = [RepairStep(*row) for row in rows]
    return RepairReport(
        steps=tuple(s for s in steps if s.action not in ("by hand", "summary")),
        by_hand=tuple(s for s in steps if s.action == "by hand"),
        summary=next(s.why for s in steps if s.action == "summary"),
        dry_run=dry_run,
    )


@local_only("run `spark-savepoint repair PATH --query MODULE:FUNCTION`.")
def _repair_with_query(
    spark: SparkSession, path: str, query: DataFrame, output_mode: str, dry_run: bool,
    to_batch: int, force: bool,
) -> list[tuple[str, str | None, str]]:  # fmt: skip
    text = bridge.repair_with_query(spark, path, query, output_mode, dry_run, to_batch, force)
    return [tuple(row) for row in json.loads(text)]


def undo_repair(spark: SparkSession, path: str, force: bool = False) -> str:
    """Put the checkpoint at ``path`` back as it was before its last repair; one line.

    Raises:
        SavepointError: ``RepairRefused`` when it has no repair to undo.
    """
    return str(procedures.call(spark, path, "repair_undo", force=force).message)
