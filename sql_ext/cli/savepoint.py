"""``spark-savepoint savepoint take|list|restore|dispose``: the savepoint commands of the CLI.

Each runs in a quiet local Spark session (or the active one), prints what it did, and shows the
progress of long steps on stderr.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_savepoint.sql_ext.cli.local import in_local_session
from spark_savepoint.sql_ext.cli.options import command, common
from spark_savepoint.sql_ext.cli.progress import job_progress

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``savepoint`` and its sub-commands to the CLI's parser."""
    savepoint = command(
        subparsers, "savepoint",
        help="take, list, restore or dispose of savepoints (self-contained images of state)",
    )  # fmt: skip
    actions = savepoint.add_subparsers(dest="action", required=True)
    local = argparse.ArgumentParser(add_help=False, parents=[common()])
    local.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")

    take = actions.add_parser("take", parents=[local], help="take a savepoint of a checkpoint")
    take.add_argument("checkpoint", help="checkpoint folder (the query may keep running)")
    take.add_argument("target", help="new savepoint folder (must not exist or be empty)")
    take.add_argument("--batch", type=int, help="committed batch to take (default: the last)")
    _uid_option(take, "name an operator: --uid 0=orders_by_user")
    take.add_argument(
        "--writable", action="store_true", help="allow edits through the catalog on the savepoint"
    )
    take.add_argument(
        "--count-rows", action="store_true",
        help="count the rows of HDFS-backed state too (reads every record; RocksDB's are free)",
    )  # fmt: skip
    take.add_argument("--json", action="store_true", help="print the whole manifest as JSON")
    take.set_defaults(run=_take)

    restore = actions.add_parser(
        "restore", parents=[local],
        help="restore a savepoint into a new checkpoint the query starts from",
    )  # fmt: skip
    restore.add_argument("savepoint", help="savepoint (or checkpoint) folder")
    restore.add_argument("target", help="new checkpoint folder (must not exist or be empty)")
    restore.add_argument(
        "--partitions", type=int, help="rehash the state into N partitions (Spark's partitioner)"
    )
    restore.add_argument(
        "--provider", choices=("hdfs", "rocksdb"), help="migrate the state store provider"
    )
    _uid_option(restore, "move or name an operator: --uid agg_0=1, --uid 0=orders_by_user")
    restore.add_argument(
        "--drop-operator", action="append", default=[], metavar="UID",
        help="leave an operator's state out (repeatable)",
    )  # fmt: skip
    restore.set_defaults(run=_restore)

    listing = actions.add_parser("list", parents=[local], help="list the savepoints in a folder")
    listing.add_argument("folder", help="a savepoint, or a folder of savepoints")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(run=_list)

    dispose = actions.add_parser(
        "dispose", parents=[local], help="remove a savepoint (exactly the files it lists)"
    )
    dispose.add_argument("path", help="savepoint folder")
    dispose.set_defaults(run=_dispose)


def _uid_option(parser: argparse.ArgumentParser, text: str) -> None:
    parser.add_argument(
        "--uid", action="append", default=[], metavar="OPERATOR=NAME", help=f"{text} (repeatable)"
    )


def _take(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.savepoints import take_savepoint

    def run(spark: SparkSession) -> str:
        manifest = take_savepoint(
            spark, args.checkpoint, args.target, args.batch, args.uid, args.writable,
            args.count_rows,
        )  # fmt: skip
        if args.json:
            return json.dumps(manifest, indent=2)
        operators = ", ".join(_operator(op) for op in manifest["operators"]) or "none"
        return (
            f"Took savepoint '{args.target}' of batch {manifest['batch_id']} of "
            f"'{args.checkpoint}': {operators}; {_rows(manifest['rows'])}, "
            f"{len(manifest['files'])} files, {_size(manifest['bytes'])}."
        )

    return _local(args, "take", run)


def _operator(op: dict) -> str:
    name = op["uid"] + (f" ({op['user_uid']})" if op.get("user_uid") else "")
    return f"{name} {_rows(op['rows'])}"


def _rows(rows: int | None) -> str:
    """``12 rows``, or what a manifest's ``null`` means."""
    return "rows not counted" if rows is None else f"{rows} rows"


def _count(rows: int | None) -> str:
    """A listing's rows: the count, or ``-`` where not counted."""
    return "-" if rows is None else str(rows)


def _restore(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.savepoints import restore_savepoint

    return _local(args, "restore", lambda spark: restore_savepoint(
        spark, args.savepoint, args.target, args.partitions, args.provider, args.uid,
        args.drop_operator,
    ))  # fmt: skip


def _list(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.savepoints import list_savepoints

    def run(spark: SparkSession) -> str:
        found = list_savepoints(spark, args.folder)
        if args.json:
            return "\n".join(json.dumps(info.__dict__) for info in found)
        if not found:
            return f"No savepoints in '{args.folder}'."
        rows = [("path", "batch", "taken at", "operators", "rows", "size")] + [
            (i.path, str(i.batch_id), i.taken_at, i.operators, _count(i.rows), _size(i.bytes))
            for i in found
        ]
        widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
        lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
        return "\n".join(line.rstrip() for line in lines)

    return _local(args, None, run)


def _dispose(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.savepoints import dispose_savepoint

    return _local(args, None, lambda spark: dispose_savepoint(spark, args.path))


def _local(
    args: argparse.Namespace, label: str | None, action: Callable[[SparkSession], str]
) -> int:

    def run(spark: SparkSession) -> str:
        if label is None:
            return action(spark)
        with job_progress(spark, label):
            return action(spark)

    return in_local_session(args, run)


def _size(n: float) -> str:
    """Bytes for people.

    >>> _size(512), _size(2048), _size(5 * 1024 * 1024)
    ('512 B', '2.0 KiB', '5.0 MiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
