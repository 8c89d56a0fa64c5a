"""``inspect --html``: one self-contained HTML page (inline CSS and SVG, no script, nothing
fetched) with the summary table, a bar chart of rows per partition for every counted state
table (one ``<rect class="bar">`` per partition, its ``<title>`` the tooltip) and a stacked bar
chart of the state bytes each batch wrote, per operator. Every text is escaped.

>>> _esc('<a href="x">')
'&lt;a href=&quot;x&quot;&gt;'
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_savepoint.sql_ext.cli.report_text import human_bytes, summary

if TYPE_CHECKING:
    from spark_savepoint.sql_ext.inspection import Inspection, TableStats

WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 720, 220, 56, 28, 12
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1")

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 960px; color: #222; }
h1 { font-size: 1.4em; word-break: break-all; } h2 { font-size: 1.15em; margin-top: 2em; }
pre { background: #f6f8fa; padding: 1em; overflow-x: auto; font-size: 12px; }
figure { margin: 1.2em 0; } figcaption { font-weight: 600; margin-bottom: .3em; }
svg { width: 100%; height: auto; background: #fff; border: 1px solid #ddd; }
svg text { font: 11px system-ui, sans-serif; fill: #555; }
.bar { fill: #4e79a7; } .bar.empty { fill: #ccc; } .bar:hover, .written:hover { opacity: .7; }
.median { stroke: #e15759; stroke-dasharray: 4 3; } .axis { stroke: #999; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; }
.note { color: #777; }
"""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def render(inspection: Inspection) -> str:
    """The whole page."""
    body = [
        f"<h1>Checkpoint {_esc(inspection.checkpoint)}</h1>",
        f"<pre>{_esc(summary(inspection))}</pre>",
        "<h2>Rows per partition</h2>",
    ]
    if inspection.rows_counted:
        body += [_partition_figure(t) for op in inspection.operators for t in op.tables]
    else:
        body.append('<p class="note">Rows were not counted (--no-rows).</p>')
    body += ["<h2>State files written per batch</h2>", _batches_figure(inspection)]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>spark-savepoint inspect: {_esc(inspection.checkpoint)}</title>"
        f"<style>{CSS}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _partition_figure(table: TableStats) -> str:
    rows = table.rows_per_partition
    if rows is None:
        return f'<p class="note">{_esc(table.table)}: rows not counted.</p>'
    skew = "-" if table.skew is None else f"{table.skew:.2f}"
    caption = (
        f"{table.table}: {table.rows} rows in {table.partitions} partitions, largest "
        f"{table.largest}, median {table.median:g}, skew {skew}"
    )
    top = max(max(rows, default=0), 1)
    step = (WIDTH - LEFT - 8) / max(len(rows), 1)
    plot = HEIGHT - BOTTOM - TOP
    parts = _axes(top, f"{top} rows")
    for p, n in enumerate(rows):
        h = plot * n / top
        parts.append(
            f'<rect class="bar{" empty" if n == 0 else ""}" x="{LEFT + p * step + step * 0.1:.1f}"'
            f' y="{TOP + plot - max(h, 1):.1f}" width="{max(step * 0.8, 1):.1f}"'
            f' height="{max(h, 1):.1f}"><title>partition {p}: {n} rows</title></rect>'
        )
    parts += _partition_labels(len(rows), step)
    if table.median:
        y = TOP + plot - plot * table.median / top
        parts.append(
            f'<line class="median" x1="{LEFT}" x2="{WIDTH - 8}" y1="{y:.1f}" y2="{y:.1f}">'
            f"<title>median {table.median:g} rows</title></line>"
        )
    return _figure(caption, "partitions", table.table, parts)


def _partition_labels(count: int, step: float) -> list[str]:
    every = max(1, count // 16)
    return [
        f'<text x="{LEFT + p * step + step / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">'
        f"{p}</text>"
        for p in range(0, count, every)
    ]


def _batches_figure(inspection: Inspection) -> str:
    uids = [op.uid for op in inspection.operators]
    batches = inspection.batches
    if not batches:
        return '<p class="note">No batches.</p>'
    totals = [sum(b.written.values()) for b in batches]
    top = max(max(totals), 1)
    step = (WIDTH - LEFT - 8) / len(batches)
    plot = HEIGHT - BOTTOM - TOP
    parts = _axes(top, human_bytes(top))
    for i, b in enumerate(batches):
        y = TOP + plot
        for uid, color in zip(uids, _colors(len(uids)), strict=True):
            h = plot * b.written.get(uid, 0) / top
            y -= h
            state = "" if b.committed else " (not committed)"
            parts.append(
                f'<rect class="written" fill="{color}" x="{LEFT + i * step + step * 0.1:.1f}"'
                f' y="{y:.1f}" width="{max(step * 0.8, 1):.1f}" height="{h:.1f}"><title>'
                f"{_esc(f'batch {b.batch_id}{state}, {uid}')}: "
                f"{_esc(human_bytes(b.written.get(uid, 0)))}</title></rect>"
            )
    every = max(1, len(batches) // 16)
    parts += [
        f'<text x="{LEFT + i * step + step / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">'
        f"{b.batch_id}</text>"
        for i, b in enumerate(batches)
        if i % every == 0
    ]
    legend = "".join(
        f'<span style="background:{c}"></span>{_esc(u)}'
        for u, c in zip(uids, _colors(len(uids)), strict=True)
    )
    caption = "bytes of state files each batch wrote (x: batch id)"
    return _figure(caption, "batches", "batches", parts) + f'<p class="legend">{legend}</p>'


def _axes(top: int, label: str) -> list[str]:
    base = HEIGHT - BOTTOM
    return [
        f'<line class="axis" x1="{LEFT}" x2="{WIDTH - 8}" y1="{base}" y2="{base}"/>',
        f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{base}"/>',
        f'<text x="{LEFT - 4}" y="{TOP + 10}" text-anchor="end">{_esc(label)}</text>',
        f'<text x="{LEFT - 4}" y="{base}" text-anchor="end">0</text>',
    ]


def _figure(caption: str, kind: str, name: str, parts: Sequence[str]) -> str:
    return (
        f"<figure><figcaption>{_esc(caption)}</figcaption>"
        f'<svg class="{kind}" data-table="{_esc(name)}" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' role="img" aria-label="{_esc(caption)}">' + "".join(parts) + "</svg></figure>"
    )


def _colors(count: int) -> list[str]:
    return [PALETTE[i % len(PALETTE)] for i in range(count)]
