"""``spark-savepoint create``, ``recover`` and ``offsets``: one checkpoint folder each, in a
quiet local Spark session (or the active one). ``create`` makes an empty savepoint shaped like a
checkpoint, ``recover`` completes or empties what an interrupted writer left, ``offsets`` says
where the query's sources stand.
"""

from __future__ import annotations

import argparse

from spark_savepoint.sql_ext.cli.local import check_local, in_local_session
from spark_savepoint.sql_ext.cli.options import command


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``create``, ``recover`` and ``offsets`` to the CLI's parser."""
    create = command(
        subparsers, "create",
        help="create an empty savepoint shaped like a checkpoint, to bootstrap with INSERT",
    )  # fmt: skip
    create.add_argument("target", help="new folder (must not exist or be empty)")
    create.add_argument(
        "--like",
        required=True,
        metavar="CHECKPOINT",
        help="checkpoint of the same query: operators, schemas, source positions",
    )
    create.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    create.set_defaults(run=_create)

    recover = command(
        subparsers, "recover",
        help="complete the batch an interrupted edit left uncommitted, without the edit; or "
        "empty the folder of an unfinished savepoint, restore or upgrade",
    )  # fmt: skip
    recover.add_argument("path", metavar="PATH", help="checkpoint folder")
    recover.add_argument(
        "--force",
        action="store_true",
        help="also when the interrupted writer ran on another host (you know it has stopped)",
    )
    recover.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    recover.set_defaults(run=_recover)

    offsets = command(
        subparsers, "offsets",
        help="where the query's sources stand (Kafka offsets, file source log, rate), and the"
        " batch's watermark",
    )  # fmt: skip
    offsets.add_argument("path", metavar="PATH", help="checkpoint folder")
    offsets.add_argument(
        "--batch", type=int, help="after this committed batch (default: the last committed)"
    )
    offsets.add_argument("--master", default="local[1]", help="Spark master (%(default)s)")
    offsets.set_defaults(run=_offsets)


def _create(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.empty import create_savepoint

    return in_local_session(args, lambda spark: create_savepoint(spark, args.target, args.like))


def _recover(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.edits import recover

    return in_local_session(args, lambda spark: recover(spark, args.path, force=args.force))


def _offsets(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.offsets import describe

    check_local([args.path])
    return in_local_session(args, lambda spark: describe(spark, args.path, args.batch))
