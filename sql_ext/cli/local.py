"""What the commands share around Spark: the checkpoints named on the command line (``PATH`` or
``NAME=PATH``), checked before Spark starts, and the quiet local session a command runs in.

>>> parse_catalogs(["/ckpt/a", "orders=/ckpt/b", "/ckpt/c"], "savepoint")
{'savepoint': '/ckpt/a', 'orders': '/ckpt/b', 'savepoint2': '/ckpt/c'}
"""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlparse

from spark_savepoint.catalog.errors import BadArguments, NoSuchCheckpoint, NotACheckpoint
from spark_savepoint.sql_ext.cli.queries import QueryBuilder, query_names_conf
from spark_savepoint.sql_ext.quiet import scratch, spark_settings
from spark_savepoint.sql_ext.session import DEFAULT_CATALOG, check_catalog_name, is_local

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

T = TypeVar("T")
INTERRUPT_GRACE_SECONDS = 120
"""How long an interrupted command waits for its action to undo what it wrote."""
INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


def parse_catalogs(paths: Sequence[str], catalog: str) -> dict[str, str]:
    """``path`` or ``name=path`` items -> {catalog name: path}; the first plain path gets
    ``catalog``, later plain paths ``catalog2``, ``catalog3``..."""
    catalogs: dict[str, str] = {}
    plain = 0
    for item in paths:
        name, sep, path = item.partition("=")
        if not sep or "/" in name or ":" in name:
            plain += 1
            name, path = (catalog if plain == 1 else f"{catalog}{plain}"), item
        check_catalog_name(name)
        if name in catalogs:
            raise BadArguments(
                f"Catalog {name!r} is given twice ({catalogs[name]} and {path}): give each"
                " checkpoint its own name (NAME=PATH)."
            )
        catalogs[name] = path
    return catalogs


def check_local(paths: Sequence[str], catalog: str = DEFAULT_CATALOG) -> None:
    """Fail before starting Spark when a local checkpoint folder is missing or is not one
    (other file systems, e.g. ``s3a://``, are checked by the catalog when first used)."""
    for path in parse_catalogs(paths, catalog).values():
        if not is_local(path):
            continue
        url = urlparse(path)
        folder = Path(url.path if url.scheme else path)
        if folder.is_file():
            raise NotACheckpoint(
                f"'{path}' is a file, not a checkpoint folder: give the folder the query's "
                "checkpointLocation names (it holds metadata, offsets/, commits/ and state/)."
            )
        if not folder.is_dir():
            raise NoSuchCheckpoint(
                f"Checkpoint folder '{path}' does not exist. Give the folder of a streaming "
                "query's checkpointLocation (or of a savepoint): the catalog's path, the "
                "command's argument."
            )
        if not ((folder / "offsets").is_dir() and (folder / "commits").is_dir()):
            found = ", ".join(sorted(p.name for p in folder.iterdir())[:10]) or "nothing"
            raise NotACheckpoint(
                f"'{path}' is not a streaming checkpoint: it has no offsets/ and commits/ logs "
                f"(it holds: {found})."
            )


def in_local_session(args: argparse.Namespace, action: Callable[[SparkSession], str]) -> int:
    """Prints what ``action`` returns, run in the active session or a quiet local one (stopped
    afterwards, its scratch files removed)."""
    print(run_in_local_session(args, action))
    return 0


def run_in_local_session(args: argparse.Namespace, action: Callable[[SparkSession], T]) -> T:
    """What ``action`` returns, run in the active session or a quiet local one (stopped
    afterwards, its scratch files removed)."""
    from pyspark.sql import SparkSession

    from spark_savepoint.sql_ext.session import session

    running = SparkSession.getActiveSession()
    with scratch() as folder:
        spark = session(master=args.master, **spark_settings(folder, verbose=args.verbose))
        try:
            return interruptible(spark, action)
        finally:
            if running is None:
                spark.stop()


def interruptible(spark: SparkSession, action: Callable[[SparkSession], T]) -> T:
    """``action(spark)``, run in a worker thread so that Ctrl-C or SIGTERM in the main thread
    cancels its Spark jobs and then waits for it: the action's own failure path (removing the
    folder it was writing) runs to its end before Spark stops, and nothing is left half
    written. Raises KeyboardInterrupt once the action has ended."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = action(spark)
        except BaseException as error:  # handed to the main thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name="spark-savepoint-action", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        # a second Ctrl-C (or the SIGTERM a process group gets twice) must not cut the undo
        ignored = {sig: signal.signal(sig, signal.SIG_IGN) for sig in INTERRUPTS}
        try:
            spark.sparkContext.cancelAllJobs()
            worker.join(INTERRUPT_GRACE_SECONDS)
        finally:
            for sig, handler in ignored.items():
                signal.signal(sig, handler)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return cast(T, outcome["value"])


def query_names(
    args: argparse.Namespace, catalogs: dict[str, str], queries: dict[str, QueryBuilder]
) -> dict[str, str]:
    """The settings that give catalogs their ``--query``'s value column names, planned in a
    short local session before the command's own Spark starts; none without ``--query``."""
    if not queries:
        return {}
    return run_in_local_session(
        args, lambda spark: query_names_conf(spark, catalogs, queries, args.output_mode)
    )
