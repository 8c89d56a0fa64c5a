"""``spark-savepoint upgrade check|apply``: which state of a checkpoint a changed query keeps,
and the new checkpoint it continues from.

``check`` prints the report (``--json``: as JSON) and exits with the verdict's code: 0
compatible, 3 compatible with changes, 4 incompatible (1 is an error, 2 bad arguments).
``apply`` writes the new checkpoint and prints a one-line summary.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from spark_savepoint.sql_ext.cli.local import check_local, in_local_session, run_in_local_session
from spark_savepoint.sql_ext.cli.options import command, common
from spark_savepoint.sql_ext.cli.progress import job_progress
from spark_savepoint.sql_ext.cli.queries import add_output_mode, load_query

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from spark_savepoint.sql_ext.upgrade import UpgradeReport


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``upgrade`` and its sub-commands to the CLI's parser."""
    upgrade = command(
        subparsers, "upgrade",
        help="check which state of a checkpoint a changed query keeps",
    )  # fmt: skip
    actions = upgrade.add_subparsers(dest="action", required=True)
    query = argparse.ArgumentParser(add_help=False, parents=[common()])
    query.add_argument("checkpoint", help="the query's checkpoint folder")
    query.add_argument(
        "--query", required=True, metavar="MODULE:FUNCTION",
        help="a function that builds the new streaming DataFrame from a SparkSession"
        " (module importable from here, or path/to/file.py:function)",
    )  # fmt: skip
    add_output_mode(query, "the new query")
    query.add_argument(
        "--map", action="append", default=[], metavar="OLD=NEW",
        help="pair an old operator with a new one by hand: --map agg_0=1 (repeatable)",
    )  # fmt: skip
    query.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    check = actions.add_parser(
        "check", parents=[query],
        help="plan the new query (reading no input) and match its stateful operators with the"
        " checkpoint's; exit 0 compatible, 3 compatible with changes, 4 incompatible",
    )  # fmt: skip
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(run=_check)
    apply = actions.add_parser(
        "apply", parents=[query],
        help="write a new checkpoint the new query continues from, with the old state upgraded"
        " (the old checkpoint is not changed)",
    )  # fmt: skip
    apply.add_argument("target", help="new checkpoint folder (must not exist or be empty)")
    apply.add_argument(
        "--allow-drop", action="store_true",
        help="allow the upgrade to discard state (operators or columns the new query lacks)",
    )  # fmt: skip
    apply.set_defaults(run=_apply)


def _apply(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.upgrade import upgrade_apply

    check_local([args.checkpoint])
    build = load_query(args.query)

    def run(spark: SparkSession) -> str:
        with job_progress(spark, "upgrade"):
            return upgrade_apply(spark, args.checkpoint, args.target, build(spark),
                                 args.output_mode, args.map, args.allow_drop)  # fmt: skip

    return in_local_session(args, run)


def _check(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.upgrade import upgrade_check

    check_local([args.checkpoint])
    build = load_query(args.query)

    def run(spark: SparkSession) -> UpgradeReport:
        return upgrade_check(spark, args.checkpoint, build(spark), args.output_mode, args.map)

    report = run_in_local_session(args, run)
    print(json.dumps(asdict(report), indent=1) if args.json else report.text())
    return report.exit_code
