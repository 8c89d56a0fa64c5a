"""What changed in a query's state between two points: two batches of its checkpoint, or a
batch and another checkpoint or savepoint folder of the same query; and the change feed, what
each batch changed. The SQL table functions ``savepoint_diff(table, from [, to])`` and
``savepoint_changes(table, from [, to])`` do the work (also over Spark Connect and the Thrift
server); this module gives them to Python and the command line::

    from spark_savepoint import changes, diff
    diff(spark, "savepoint.agg_0.default", 3, 7).show()     # change_type, key, before, after
    changes(spark, "savepoint.agg_0.default", 3, 7).show()  # batch_id, change_type, row, ...
    print(describe_diff(spark, "/data/ckpt", 3))            # every table: a summary, then rows

``change_type`` is ``insert``, ``update`` or ``delete``; ``before`` and ``after`` hold the value
columns (NULL where the entry is absent). Rows of lists and join sides, which repeat their key,
come as whole rows, inserted or deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_savepoint.catalog.bridge import savepoint_errors
from spark_savepoint.sql_ext.session import DEFAULT_CATALOG, attach

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession

Point = int | str
"""A batch id of the table's checkpoint, or the folder of a checkpoint or savepoint."""

CHANGE_TYPES = ("insert", "update", "delete")
ROWS_SHOWN = 20


def diff(spark: SparkSession, table: str, from_: Point, to: Point | None = None) -> DataFrame:
    """The changes of state table ``table`` (``<catalog>.<uid>.<state>``) from ``from_`` to
    ``to`` (default: the table's current batch), as ``savepoint_diff`` returns them.

    >>> diff(spark, "savepoint.agg_0.default", 1).where("change_type = 'delete'")  # doctest: +SKIP
    """
    return _call(spark, "savepoint_diff", table, from_, to)


def changes(spark: SparkSession, table: str, from_: int, to: int | None = None) -> DataFrame:
    """The change feed of state table ``table``: what each batch from ``from_`` to ``to``
    (default: the table's current batch) changed, as ``savepoint_changes`` returns it
    (``batch_id``, ``change_type``, the row after the change, ``partition_id``).

    >>> changes(spark, "savepoint.agg_0.default", 5).where("user = 'alice'")  # doctest: +SKIP
    """
    return _call(spark, "savepoint_changes", table, from_, to)


def _call(
    spark: SparkSession, function: str, table: str, from_: Point, to: Point | None
) -> DataFrame:
    points = {"table": table, "from": from_, **({} if to is None else {"to": to})}
    markers = ", ".join(f":{name}" for name in points)
    with savepoint_errors():
        return spark.sql(f"SELECT * FROM {function}({markers})", args=points)


@dataclass(frozen=True)
class TableDiff:
    """The changes of one state table: counts per change type, and the first rows."""

    table: str
    counts: dict[str, int]
    rows: list[Row]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def summary(self) -> str:
        """``agg_0.default: 1 inserted, 2 updated, 0 deleted`` (``no change`` when none)."""
        if not self.total:
            return f"{self.table}: no change"
        counts = ", ".join(f"{self.counts.get(t, 0)} {t.rstrip('e')}ed" for t in CHANGE_TYPES)
        return f"{self.table}: {counts}"


def diff_tables(
    spark: SparkSession,
    path: str,
    from_: Point,
    to: Point | None = None,
    table: str | None = None,
    catalog: str = DEFAULT_CATALOG,
    rows: int = ROWS_SHOWN,
) -> list[TableDiff]:
    """Per state table of the checkpoint at ``path`` (or only ``table``, ``uid.state``): its
    changes from ``from_`` to ``to`` (default: the last committed batch), counted, with the
    first ``rows`` of them. Attaches the checkpoint as ``catalog``."""
    attach(spark, path, catalog)
    names = [f"{r.uid}.{r.state}" for r in state_tables(spark, catalog)]
    if table is not None:
        names = [n for n in names if n == table] or [table]  # an unknown one: its error
    out = []
    for name in names:
        changes = diff(spark, f"`{catalog}`.{_quoted(name)}", from_, to).cache()
        try:
            counted = changes.groupBy("change_type").count().collect()
            first = changes.limit(rows).collect() if rows else []
        finally:
            changes.unpersist()
        out.append(TableDiff(name, {r.change_type: int(r["count"]) for r in counted}, first))
    return out


def state_tables(spark: SparkSession, catalog: str) -> list[Row]:
    """The ``uid``, ``state`` and ``state_kind`` of every state table of ``catalog`` (its
    metadata rows of operators, not of the query's logs)."""
    listed = spark.sql(f"SELECT uid, state, state_kind, operator_id FROM `{catalog}`.metadata")
    return [r for r in listed.collect() if r.operator_id is not None]


def describe_diff(
    spark: SparkSession,
    path: str,
    from_: Point,
    to: Point | None = None,
    table: str | None = None,
    rows: int = ROWS_SHOWN,
) -> str:
    """``spark-savepoint diff``: a line naming the points, a summary line per table, then the
    first ``rows`` changes of each changed table."""
    tables = diff_tables(spark, path, from_, to, table, rows=rows)
    lines = [f"diff of '{path}' from {_point(from_)} to {_point(to)}:"]
    lines += [f"  {t.summary}" for t in tables]
    for t in tables:
        if t.rows:
            lines.append(f"{t.table}:")
            lines += [f"  {_row(r)}" for r in t.rows]
            if t.total > len(t.rows):
                lines.append(f"  ... {t.total - len(t.rows)} more")
    return "\n".join(lines)


def point_of(text: str) -> Point:
    """A point given on the command line: digits are a batch id, anything else a folder."""
    return int(text) if text.strip().isdigit() else text


def _point(point: Point | None) -> str:
    if point is None:
        return "the last batch"
    return f"batch {point}" if isinstance(point, int) else f"'{point}'"


def _quoted(name: str) -> str:
    return ".".join(f"`{part}`" for part in name.split(".", 1))


def _row(row: Row) -> str:
    """``update  user=alice  {cnt: 2, total: 17} -> {cnt: 3, total: 18}``."""
    fields = row.asDict(recursive=True)
    change = fields.pop("change_type")
    before, after = fields.pop("before", None), fields.pop("after", None)
    key = "  ".join(f"{k}={v}" for k, v in fields.items())
    values = "" if "before" not in row.__fields__ else f"  {_values(before)} -> {_values(after)}"
    return f"{change:<6}  {key}{values}"


def _values(values: dict | None) -> str:
    if values is None:
        return "(none)"
    return "{" + ", ".join(f"{k}: {v}" for k, v in values.items()) + "}"
