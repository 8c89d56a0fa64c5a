"""``spark-savepoint inspect``: a checkpoint's state per operator and table on the terminal
(``--json``: as JSON), and with ``--html FILE`` one self-contained page with charts.

It runs in a quiet local Spark session (or the active one) with the progress of the row
counts on stderr; see :mod:`spark_savepoint.sql_ext.inspection` for what is measured how.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from spark_savepoint.sql_ext.inspection import Inspection, OperatorStats, TableStats

RECENT_BATCHES = 10
"""Batches the terminal summary lists (the last ones); --json and --html have all."""

HELP = """\
Counts each state table's rows per partition with one Spark job per table (--no-rows: none);
everything else comes from the checkpoint's logs and a listing of its files, without a Spark
job. skew = the largest partition's rows / the median partition's rows ('-' when the median is
0). "on disk": every file of the operator's state folder (all versions kept). "written per
batch": the state files of the batch's version (HDFS-backed .delta/.snapshot, RocksDB
.changelog/.zip, with Spark's checksum files) plus the RocksDB SST and log files uploaded with
that zip. A join's internal stores are listed, not counted."""


def add_inspect(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Adds ``inspect`` to the CLI's parser."""
    inspect = sub.add_parser(
        "inspect", parents=[common], epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="per operator and state: rows, bytes, partitions, skew, batches kept, last commit",
        description="Summarize a checkpoint's state per operator and state table.",
    )  # fmt: skip
    inspect.add_argument("path", metavar="PATH", help="checkpoint (or savepoint) folder")
    inspect.add_argument(
        "--batch", type=int, help="count rows at this committed batch (default: the last)"
    )
    inspect.add_argument(
        "--html", metavar="FILE", help="also write one self-contained HTML page with charts"
    )
    inspect.add_argument("--json", action="store_true", help="print the summary as JSON")
    inspect.add_argument(
        "--no-rows", action="store_true", help="do not count rows (no Spark job at all)"
    )
    inspect.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    inspect.set_defaults(run=_inspect)


def _inspect(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.cli import check_local, run_in_local_session
    from spark_savepoint.sql_ext.inspection import inspect_checkpoint
    from spark_savepoint.sql_ext.progress import job_progress

    check_local([args.path])

    def run(spark: SparkSession) -> Inspection:
        with job_progress(spark, "inspect"):
            return inspect_checkpoint(spark, args.path, args.batch, rows=not args.no_rows)

    inspection = run_in_local_session(args, run)
    if args.html:
        from spark_savepoint.sql_ext.report_html import render

        Path(args.html).write_text(render(inspection), encoding="utf-8")
    print(json.dumps(inspection.as_dict(), indent=1) if args.json else summary(inspection))
    if args.html and not args.json:
        print(f"Wrote {args.html}.")
    return 0


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
    rows = [("uid", "state", "partitions", "rows", "largest", "median", "skew", "on disk",
             "versions")]  # fmt: skip
    for op in inspection.operators:
        rows += [_table_row(op, t, i == 0) for i, t in enumerate(op.tables)]
    lines += _columns(rows, numeric=range(2, 8))
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


def _columns(rows: list[tuple[str, ...]], numeric: range) -> list[str]:
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
