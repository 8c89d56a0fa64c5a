"""``spark-savepoint inspect``'s terminal summary of an :class:`Inspection`: a head, one line
per state table, the state files the last batches wrote; sizes for people (:func:`human_bytes`,
which ``--html`` uses too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

    from spark_savepoint.sql_ext.inspection import Inspection, OperatorStats, TableStats

RECENT_BATCHES = 10
"""Batches the terminal summary lists (the last ones); --json and --html have all."""


def summary(inspection: Inspection) -> str:
    """The terminal summary: a head, one line per state table, the last batches."""
    committed = inspection.committed
    kept = f"{len(committed)} ({committed[0]}..{committed[-1]})" if committed else "none"
    lines = [
        f"checkpoint '{inspection.checkpoint}' at batch {inspection.batch_id}: "
        f"provider {inspection.provider}, written by Spark {inspection.spark_version}",
        f"committed batches kept: {kept}, last commit {inspection.last_commit or '-'}",
        f"state on disk: {human_bytes(sum(op.bytes_on_disk for op in inspection.operators))}"
        f" in {len(inspection.operators)} operator(s)",
        *(f"warning: {w}" for w in inspection.warnings),
        "",
    ]
    rows: list[tuple[str, ...]] = [("uid", "state", "partitions", "rows", "largest", "median",
                                    "skew", "on disk", "versions")]  # fmt: skip
    for op in inspection.operators:
        rows += [_table_row(op, t, i == 0) for i, t in enumerate(op.tables)]
    hygiene = _hygiene_columns(inspection)
    if hygiene:
        rows = [(*row, *extra) for row, extra in zip(rows, hygiene, strict=True)]
    lines += _columns(rows, numeric={*range(2, 8), *range(9, len(rows[0]))})
    lines += [
        f"note: {op.uid} keeps every key it has seen: no watermark evicts its state"
        for op in inspection.operators
        if op.never_evicted
    ]
    lines += ["", "state files written per batch:"] + _batch_lines(inspection)
    return "\n".join(lines)


def _table_row(op: OperatorStats, t: TableStats, first: bool) -> tuple[str, ...]:
    counted = t.rows_per_partition is not None
    versions = f"{op.versions[0]}..{op.versions[1]}" if op.versions else "-"
    return (
        op.uid if first else "",
        t.state,
        str(t.partitions),
        str(t.rows) if counted else "-",
        str(t.largest) if counted else "-",
        _number(t.median) if counted else "-",
        f"{t.skew:.2f}" if t.skew is not None else "-",
        human_bytes(op.bytes_on_disk) if first else "",
        versions if first else "",
    )


def _hygiene_columns(inspection: Inspection) -> list[tuple[str, ...]]:
    """The header and a cell per table of "evictable" (rows the next batch evicts under the
    watermark) and "expired" (TTL values not yet cleaned): none when no table has either."""
    tables = [t for op in inspection.operators for t in op.tables]
    if all(t.evictable is None and t.expired is None for t in tables):
        return []
    cell = lambda n: "-" if n is None else str(n)  # noqa: E731
    header: list[tuple[str, ...]] = [("evictable", "expired")]
    return header + [(cell(t.evictable), cell(t.expired)) for t in tables]


def _batch_lines(inspection: Inspection) -> list[str]:
    uids = [op.uid for op in inspection.operators]
    shown = inspection.batches[-RECENT_BATCHES:]
    rows = [("batch", "committed at", *uids)]
    for b in shown:
        committed = (b.committed_at or "-") if b.committed else "not committed"
        rows.append((str(b.batch_id), committed, *(human_bytes(b.written.get(u, 0)) for u in uids)))
    lines = _columns(rows, numeric=range(2, 2 + len(uids)))
    earlier = len(inspection.batches) - len(shown)
    if earlier:
        lines.append(f"({earlier} earlier batch(es): see --json or --html)")
    return lines


def _columns(rows: list[tuple[str, ...]], numeric: Collection[int]) -> list[str]:
    """Rows as aligned columns, numbers right-aligned."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    return [
        "  ".join(v.rjust(w) if c in numeric else v.ljust(w)
                  for c, (v, w) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in rows
    ]  # fmt: skip


def _number(value: float | None) -> str:
    """>>> _number(2.0), _number(2.5), _number(None)
    ('2', '2.5', '-')
    """
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def human_bytes(n: int) -> str:
    """Bytes for people.

    >>> human_bytes(512), human_bytes(2048), human_bytes(5 * 1024 * 1024)
    ('512 B', '2.0 KiB', '5.0 MiB')
    """
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024:
            return f"{n} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"
