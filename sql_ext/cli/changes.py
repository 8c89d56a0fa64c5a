"""``spark-savepoint diff`` and ``undo``, in a quiet local Spark session: what changed in a
checkpoint's state between two points (two of its batches, or a batch and a savepoint or
checkpoint folder of the same query: a summary line per state table, then the first changes of
each), and an edit taken back by committing its inverse as a new batch.
"""

from __future__ import annotations

import argparse

from spark_savepoint.sql_ext.cli.local import check_local, in_local_session
from spark_savepoint.sql_ext.cli.options import command


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``diff`` to the CLI's parser."""
    diff = command(
        subparsers, "diff",
        help="what changed in the state between two batches, or a batch and a savepoint",
    )  # fmt: skip
    diff.add_argument("path", metavar="PATH", help="checkpoint folder")
    diff.add_argument(
        "from_", metavar="FROM", help="a batch id of PATH, or a savepoint or checkpoint folder"
    )
    diff.add_argument(
        "to", metavar="TO", nargs="?", help="the same kinds (default: PATH's last batch)"
    )
    diff.add_argument("--table", metavar="UID.STATE", help="only this state table")
    diff.add_argument(
        "--rows", type=int, default=20, help="changes shown per table (%(default)s; 0: counts)"
    )
    diff.add_argument("--master", default="local[2]", help="Spark master (%(default)s)")
    diff.set_defaults(run=_diff)

    undo = command(
        subparsers, "undo",
        help="take an edit back: its inverse committed as a new batch (later batches stay)",
    )  # fmt: skip
    undo.add_argument("path", metavar="PATH", help="checkpoint folder")
    undo.add_argument(
        "--batch", type=int, help="the edit batch to undo (default: the last edit; see query.edits)"
    )
    undo.add_argument(
        "--force",
        action="store_true",
        help="also when later batches changed the same keys (set back; their changes are lost)",
    )
    undo.add_argument("--dry-run", action="store_true", help="plan it; write nothing")
    undo.add_argument("--master", default="local[2]", help="Spark master (%(default)s)")
    undo.set_defaults(run=_undo)


def _diff(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.diff import describe_diff, point_of

    check_local([args.path])
    points = (point_of(args.from_), None if args.to is None else point_of(args.to))
    return in_local_session(
        args,
        lambda spark: describe_diff(spark, args.path, *points, table=args.table, rows=args.rows),
    )


def _undo(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.undo import describe_undo

    check_local([args.path])
    return in_local_session(
        args,
        lambda spark: describe_undo(
            spark, args.path, args.batch, force=args.force, dry_run=args.dry_run
        ),
    )
