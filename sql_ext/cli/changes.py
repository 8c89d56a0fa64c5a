"""``spark-savepoint diff``: what changed in a checkpoint's state between two points (two of
its batches, or a batch and a savepoint or checkpoint folder of the same query), in a quiet
local Spark session: a summary line per state table, then the first changes of each.
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


def _diff(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.diff import describe_diff, point_of

    check_local([args.path])
    points = (point_of(args.from_), None if args.to is None else point_of(args.to))
    return in_local_session(
        args,
        lambda spark: describe_diff(spark, args.path, *points, table=args.table, rows=args.rows),
    )
