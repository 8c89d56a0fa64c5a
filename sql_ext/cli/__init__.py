"""``spark-savepoint``: the command line.

    spark-savepoint sql <path> [-e SQL] [--catalog NAME] [--views] [--master M] [-- spark-sql args]
    spark-savepoint sql <path> (-e SQL | -f FILE) --dry-run
    spark-savepoint sql <path> (-e SQL | -f FILE) --atomic [--dry-run]
    spark-savepoint conf <path> [--catalog NAME] [--format submit|defaults]
    spark-savepoint thriftserver <path>... [--port 10000] [--bind 127.0.0.1] [--allow-writes]
                                 [--password-file FILE] [--insecure]
    spark-savepoint connect <path>... [--port 15002] [--bind 127.0.0.1] [--allow-writes]
                            [--token-file FILE]
    spark-savepoint create <target> --like <checkpoint>
    spark-savepoint recover <path> [--force]
    spark-savepoint offsets <path> [--batch N]
    spark-savepoint savepoint take|restore|list|dispose ...
    spark-savepoint upgrade check|apply <checkpoint> --query MODULE:FUNCTION ...
    spark-savepoint inspect <path> [--batch N] [--html FILE] [--json] [--no-rows]
    spark-savepoint purge <path> [--older-than TIME [--column C]] [--aggregations] [--dry-run]
    spark-savepoint diff <path> FROM [TO] [--table UID.STATE] [--rows N]
    spark-savepoint undo <path> [--batch N] [--force] [--dry-run]
    spark-savepoint doctor <path> [--json] [--deep]   (exit 0 healthy, 1 warnings, 2 errors)
    spark-savepoint repair <path> [--dry-run] [--to-batch N] [--undo] [--force]
    spark-savepoint relocate <src> <dst> [--move] [--sink-path OLD=NEW] [--source-path OLD=NEW]

Both servers are read-only unless ``--allow-writes``. ``connect`` always asks clients for a
token (generated, or from ``--token-file`` / ``SPARK_CONNECT_AUTHENTICATE_TOKEN``);
``thriftserver`` for the password of ``--password-file`` (or LDAP, PAM, Kerberos through
``--hiveconf``), and refuses to listen beyond loopback without one unless ``--insecure``.

``sql``, ``thriftserver`` and ``connect`` take ``--query [NAME=]MODULE:FUNCTION`` (repeatable)
and ``--output-mode``: the query that writes a checkpoint (plain: the first checkpoint's;
``NAME=``: catalog NAME's), whose names its aggregation value columns take (see
:mod:`~spark_savepoint.sql_ext.cli.queries`).

One module per command group, each with one ``add(subparsers)`` that registers its commands
(:data:`COMMAND_GROUPS`, in the order ``--help`` lists them): ``sql`` (sql, conf),
``checkpoint`` (create, recover, offsets), ``savepoint``, ``upgrade``, ``inspect`` (inspect,
purge), ``changes``
(diff, undo), ``doctor`` (doctor, repair, relocate), ``serve`` (thriftserver, connect). What they
share: ``options`` (``--verbose``, ``KEY=VALUE``), ``local`` (checkpoint paths checked before
Spark starts, the quiet local session), ``queries`` (``--query``).

Every command takes ``--verbose``: Spark's default logs, and full traces of errors. Without
it, errors are one line (``spark-savepoint: [SAVEPOINT_X] ...``, exit code 1), Spark logs only
errors, and runs leave no files behind (Derby and Hive files go to a removed scratch folder).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from typing import Any

from spark_savepoint.catalog.bridge import savepoint_error
from spark_savepoint.sql_ext.cli import (
    changes,
    checkpoint,
    doctor,
    inspect,
    savepoint,
    serve,
    sql,
    upgrade,
)

COMMAND_GROUPS = (sql, checkpoint, savepoint, upgrade, inspect, changes, doctor, serve)
"""The modules whose ``add(subparsers)`` make the command line, in the order of ``--help``."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spark-savepoint",
        description="Read Spark Structured Streaming checkpoints as SQL tables "
        "<catalog>.<uid>.<state>.",
        epilog="Options after -- go to spark-sql unchanged.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.add(subparsers)
    return parser


def _interrupt_on_sigterm() -> Any:
    """SIGTERM interrupts the command as Ctrl-C does (KeyboardInterrupt), so that its cleanup
    runs (Spark stopped, scratch folders removed) instead of the process ending on the spot.
    The servers install their own handlers once they run. Returns the handler it replaced
    (None off the main thread, where none can be set)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ours, passthrough = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv \
        else (argv, [])  # fmt: skip
    args = build_parser().parse_args(ours)
    args.spark_args = passthrough
    previous = _interrupt_on_sigterm()
    try:
        return int(args.run(args))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the finally blocks below it have run
        print("spark-savepoint: interrupted; Spark stopped, temporary files removed",
              file=sys.stderr)  # fmt: skip
        return 130
    except Exception as error:
        converted = savepoint_error(error)
        if converted is None:
            raise
        if args.verbose:
            traceback.print_exc()
        print(f"spark-savepoint: {converted}", file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
