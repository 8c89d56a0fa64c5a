"""Upgrading a query: which state of a checkpoint a changed query can keep.

Spark keeps no query plan in a checkpoint, so an upgrade needs the new query. ``upgrade_check``
plans its stateful operators as Spark plans a restarted query's first batch (with the confs the
checkpoint recorded, reading no input) and matches them with the checkpoint's operators by kind
and state schema, not by position. Example::

    from spark_savepoint import upgrade_check
    report = upgrade_check(spark, "/data/ckpt", new_df, output_mode="update")
    print(report.text())        # one line per operator, then the verdict
    report.verdict              # "compatible", "changes" or "incompatible"
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.connect_client import local_only

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

EXIT_CODES = {"compatible": 0, "changes": 3, "incompatible": 4}
"""``spark-savepoint upgrade check`` exit code per verdict (1 is an error, 2 bad arguments)."""

VERDICTS = {
    "compatible": "compatible: the new query restarts on the checkpoint as it is",
    "changes": "compatible with changes: the state can be carried over, with the changes above,"
    " into a new checkpoint the new query continues from",
    "incompatible": "incompatible: some state cannot move to the new query (see why above);"
    " change the query, or map the operator elsewhere with --map OLD=NEW",
}


@dataclass(frozen=True)
class OperatorUpgrade:
    """One operator: old uid (None: new in the query) to new uid (None: not in the query)."""

    old: str | None
    new: str | None
    operator: str
    action: str
    """keep, move (same state, another operator id), change, new, drop or incompatible."""
    changes: list[str]
    reasons: list[str]


@dataclass(frozen=True)
class UpgradeReport:
    """What upgrading ``checkpoint`` (as of its batch ``batch``) to the new query does."""

    checkpoint: str
    batch: int
    verdict: str
    drops_state: bool
    reasons: list[str]
    """Why the whole query cannot take the state (e.g. other sources), beyond its operators'."""
    operators: list[OperatorUpgrade]

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def text(self) -> str:
        """The report as the CLI prints it: a line per operator, its changes, the verdict."""
        lines = [f"upgrade of '{self.checkpoint}' (batch {self.batch}) to the new query:"]
        for op in self.operators:
            lines.append(f"  {op.old or '(none)':<10} -> {op.new or '(none)':<10} "
                         f"{op.action:<12} {op.operator}{_what(op)}")  # fmt: skip
            lines += [f"{'':30}- {line}" for line in op.changes + op.reasons]
        lines += [f"  {reason}" for reason in self.reasons]
        lines.append(f"verdict: {VERDICTS[self.verdict]}")
        if self.drops_state and self.verdict != "incompatible":
            lines.append("  state would be dropped: an upgrade needs --allow-drop")
        return "\n".join(lines)


def _what(op: OperatorUpgrade) -> str:
    return {
        "keep": ": state kept as is",
        "move": ": state moves to the new operator id",
        "new": ": starts with empty state",
        "drop": ": not in the new query; its state is dropped",
        "incompatible": ": its state cannot move",
    }.get(op.action, "")


@local_only("run `spark-savepoint upgrade check PATH --query MODULE:FUNCTION`.")
def upgrade_check(
    spark: SparkSession,
    checkpoint: str,
    new_query: DataFrame,
    output_mode: str = "append",
    maps: Iterable[str] = (),
) -> UpgradeReport:
    """Match the stateful operators of streaming DataFrame ``new_query`` (run with
    ``output_mode``, as its ``writeStream`` would) with those of ``checkpoint``'s last batch;
    ``maps`` (``"agg_0=1"``) pairs operators by hand. Reads no input and writes nothing in the
    checkpoint."""
    text = bridge.upgrade_check(spark, checkpoint, new_query, output_mode, list(maps))
    values = json.loads(text)
    operators = [OperatorUpgrade(**row) for row in values.pop("operators")]
    return UpgradeReport(operators=operators, **values)


@local_only("run `spark-savepoint upgrade apply PATH TARGET --query MODULE:FUNCTION`.")
def upgrade_apply(
    spark: SparkSession,
    checkpoint: str,
    target: str,
    new_query: DataFrame,
    output_mode: str = "append",
    maps: Iterable[str] = (),
    allow_drop: bool = False,
) -> str:
    """Write the new checkpoint ``target`` that streaming DataFrame ``new_query`` continues
    from, with ``checkpoint``'s state upgraded as :func:`upgrade_check` reports it: operators
    kept or moved, aggregation buffers added at Spark's start value, types widened, new
    operators empty; source positions carried over. ``checkpoint`` is not changed. Returns a
    one-line summary.

    Raises:
        SavepointError: ``UpgradeRefused`` (incompatible, or state dropped without
        ``allow_drop``), ``TargetNotEmpty``, ...
    """
    return bridge.upgrade_apply(
        spark, checkpoint, target, new_query, output_mode, list(maps), allow_drop
    )
