"""``spark-savepoint inspect``: a checkpoint's state per operator and table on the terminal
(``--json``: as JSON), and with ``--html FILE`` one self-contained page with charts; ``purge``:
the rows the next batch would drop anyway (or older ones) deleted as one edit.

It runs in a quiet local Spark session (or the active one) with the progress of the row
counts on stderr; see :mod:`spark_savepoint.sql_ext.inspection` for what is measured how,
:mod:`.report_text` and :mod:`.report_html` for how it is shown.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext.cli.local import check_local, in_local_session, run_in_local_session
from spark_savepoint.sql_ext.cli.options import command
from spark_savepoint.sql_ext.cli.progress import job_progress
from spark_savepoint.sql_ext.cli.report_text import summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from spark_savepoint.sql_ext.inspection import Inspection

HELP = """\
Counts each state table's rows per partition with one Spark job per table (--no-rows: none);
everything else comes from the checkpoint's logs and a listing of its files, without a Spark
job. skew = the largest partition's rows / the median partition's rows ('-' when the median is
0). "on disk": every file of the operator's state folder (all versions kept). "written per
batch": the state files of the batch's version (HDFS-backed .delta/.snapshot, RocksDB
.changelog/.zip, with Spark's checksum files) plus the RocksDB SST and log files uploaded with
that zip. A join's internal stores are listed, not counted."""


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``inspect`` and ``purge`` to the CLI's parser."""
    inspect = command(
        subparsers, "inspect", epilog=HELP,
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

    purge = command(
        subparsers, "purge", epilog=PURGE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="delete rows the next batch evicts, expired TTL values or old rows, as one edit",
        description="Purge state the query no longer needs, as one edit batch.",
    )  # fmt: skip
    purge.add_argument("path", metavar="PATH", help="checkpoint folder")
    purge.add_argument(
        "--older-than", metavar="TIME",
        help="also rows whose event time is before TIME (2026-01-01 10:00:00, session time zone)",
    )  # fmt: skip
    purge.add_argument(
        "--column", metavar="C",
        help="the time column --older-than applies to in tables without an event-time column",
    )  # fmt: skip
    purge.add_argument(
        "--aggregations", action="store_true",
        help="also evictable aggregation rows (only for a query in update mode)",
    )  # fmt: skip
    purge.add_argument(
        "--no-evictable", dest="evictable", action="store_false",
        help="keep the rows the next batch evicts under the watermark",
    )  # fmt: skip
    purge.add_argument(
        "--no-expired", dest="expired", action="store_false", help="keep expired TTL values"
    )
    purge.add_argument(
        "--table", metavar="UID.STATE", action="append", help="only this table (repeatable)"
    )
    purge.add_argument("--dry-run", action="store_true", help="plan it; write nothing")
    purge.add_argument("--master", default="local[2]", help="Spark master (%(default)s)")
    purge.set_defaults(run=_purge)


PURGE_HELP = """\
Deletes, as one edit batch, the rows the restarted query would drop anyway: dropDuplicates rows
at or under the watermark the last batch set for the next (which evicts them), transformWithState
values whose TTL has expired (its next batch cleans them up), and with --older-than rows whose
event time is before a time (which no watermark may reach). Aggregation rows under the watermark
go only with --aggregations: in update mode the next batch evicts them silently, in append mode
it emits them as the windows' final counts (keep them). `inspect` shows the counts; --dry-run
says what each table would lose. Undo it with `spark-savepoint undo`."""


def _purge(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.hygiene import describe_purge

    check_local([args.path])
    return in_local_session(
        args,
        lambda spark: describe_purge(
            spark, args.path, evictable=args.evictable, aggregations=args.aggregations,
            expired=args.expired, older_than=args.older_than, column=args.column,
            tables=args.table, dry_run=args.dry_run,
        ),
    )  # fmt: skip


def _inspect(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.inspection import inspect_checkpoint

    check_local([args.path])
    if args.html and not Path(args.html).resolve().parent.is_dir():
        raise BadArguments(
            f"--html {args.html}: its folder {Path(args.html).resolve().parent} does not exist;"
            " create it first, or write the report elsewhere."
        )

    def run(spark: SparkSession) -> Inspection:
        with job_progress(spark, "inspect"):
            return inspect_checkpoint(spark, args.path, args.batch, rows=not args.no_rows)

    inspection = run_in_local_session(args, run)
    if args.html:
        from spark_savepoint.sql_ext.cli.report_html import render

        Path(args.html).write_text(render(inspection), encoding="utf-8")
    print(json.dumps(inspection.as_dict(), indent=1) if args.json else summary(inspection))
    if args.html and not args.json:
        print(f"Wrote {args.html}.")
    return 0
