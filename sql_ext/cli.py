"""``spark-savepoint``: the command line.

    spark-savepoint sql <path> [-e SQL] [--catalog NAME] [--views] [--master M] [-- spark-sql args]
    spark-savepoint sql <path> (-e SQL | -f FILE) --dry-run
    spark-savepoint sql <path> (-e SQL | -f FILE) --atomic [--dry-run]
    spark-savepoint conf <path> [--catalog NAME] [--format submit|defaults]
    spark-savepoint thriftserver <path>... [--port 10000] [--bind 127.0.0.1] [--allow-writes]
                                 [--password-file FILE] [--insecure]
    spark-savepoint connect <path>... [--port 15002] [--bind 127.0.0.1] [--allow-writes]
                            [--token-file FILE]

Both servers are read-only unless ``--allow-writes``. ``connect`` always asks clients for a
token (generated, or from ``--token-file`` / ``SPARK_CONNECT_AUTHENTICATE_TOKEN``);
``thriftserver`` for the password of ``--password-file`` (or LDAP, PAM, Kerberos through
``--hiveconf``), and refuses to listen beyond loopback without one unless ``--insecure``.

``sql``, ``thriftserver`` and ``connect`` take ``--query [NAME=]MODULE:FUNCTION`` (repeatable)
and ``--output-mode``: the query that writes a checkpoint (plain: the first checkpoint's;
``NAME=``: catalog NAME's), whose names its aggregation value columns take (see
:mod:`sql_ext.queries`).
    spark-savepoint create <target> --like <checkpoint>
    spark-savepoint recover <path> [--force]
    spark-savepoint offsets <path> [--batch N]
    spark-savepoint inspect <path> [--batch N] [--html FILE] [--json] [--no-rows]

Every command takes ``--verbose``: Spark's default logs, and full traces of errors. Without
it, errors are one line (``spark-savepoint: [SAVEPOINT_X] ...``, exit code 1), Spark logs only
errors, and runs leave no files behind (Derby and Hive files go to a removed scratch folder).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlparse

from spark_savepoint.catalog.bridge import savepoint_error
from spark_savepoint.catalog.errors import BadArguments, NoSuchCheckpoint, NotACheckpoint
from spark_savepoint.catalog.jar import pyspark_jars
from spark_savepoint.sql_ext.credentials import check_bind, read_secret
from spark_savepoint.sql_ext.inspect_cli import add_inspect
from spark_savepoint.sql_ext.queries import (
    QueryBuilder,
    add_query_options,
    load_queries,
    query_names_conf,
)
from spark_savepoint.sql_ext.quiet import java_options, scratch, spark_settings
from spark_savepoint.sql_ext.savepoint_cli import add_savepoint
from spark_savepoint.sql_ext.session import (
    DEFAULT_CATALOG,
    catalog_conf,
    is_local,
    jar_conf,
    local_files_conf,
)
from spark_savepoint.sql_ext.upgrade_cli import add_upgrade

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

T = TypeVar("T")


def _parse_catalogs(paths: Sequence[str], catalog: str) -> dict[str, str]:
    """``path`` or ``name=path`` items -> {catalog name: path}; the first plain path gets
    ``catalog``, later plain paths ``catalog2``, ``catalog3``..."""
    catalogs: dict[str, str] = {}
    plain = 0
    for item in paths:
        name, sep, path = item.partition("=")
        if not sep or "/" in name or ":" in name:
            plain += 1
            name, path = (catalog if plain == 1 else f"{catalog}{plain}"), item
        catalogs[name] = path
    return catalogs


def conf_for(paths: Sequence[str], catalog: str = DEFAULT_CATALOG) -> dict[str, str]:
    """All Spark settings for the given checkpoints: the jar, the forkless local file system
    when every checkpoint is local (it serves ``file:`` paths only), and one catalog each."""
    catalogs = _parse_catalogs(paths, catalog)
    conf = jar_conf()
    if all(is_local(path) for path in catalogs.values()):
        conf.update(local_files_conf())
    for name, path in catalogs.items():
        conf.update(catalog_conf(path, name))
    return conf


def check_local(paths: Sequence[str], catalog: str = DEFAULT_CATALOG) -> None:
    """Fail before starting Spark when a local checkpoint folder is missing or is not one
    (other file systems, e.g. ``s3a://``, are checked by the catalog when first used)."""
    for path in _parse_catalogs(paths, catalog).values():
        if not is_local(path):
            continue
        url = urlparse(path)
        folder = Path(url.path if url.scheme else path)
        if not folder.is_dir():
            raise NoSuchCheckpoint(
                f"Checkpoint folder '{path}' does not exist. Point the catalog's path at a "
                "streaming query's checkpointLocation."
            )
        if not ((folder / "offsets").is_dir() and (folder / "commits").is_dir()):
            found = ", ".join(sorted(p.name for p in folder.iterdir())[:10]) or "nothing"
            raise NotACheckpoint(
                f"'{path}' is not a streaming checkpoint: it has no offsets/ and commits/ logs "
                f"(it holds: {found})."
            )


def spark_sql_command(
    paths: Sequence[str],
    catalog: str,
    extra: Sequence[str],
    *,
    scratch_dir: Path,
    master: str = "local[*]",
    verbose: bool = False,
) -> list[str]:
    """The spark-sql command line (from the installed pyspark) on ``master`` with the catalogs
    attached, column headers on, Derby/Hive files in ``scratch_dir`` and, unless ``verbose``,
    quiet. A ``--master`` in ``extra`` (after ``--``) comes last, so it wins."""
    spark_sql = Path(pyspark_jars()).parent / "bin" / "spark-sql"
    command = [str(spark_sql), "--master", master,
               "--driver-java-options", java_options(scratch_dir, verbose=verbose)]  # fmt: skip
    settings = {**conf_for(paths, catalog), **spark_settings(scratch_dir, verbose=verbose),
                "spark.hadoop.hive.cli.print.header": "true"}  # fmt: skip
    for key, value in settings.items():
        if key == "spark.driver.extraClassPath":
            command += ["--driver-class-path", value]
        elif key == "spark.jars":
            command += ["--jars", value]
        elif key != "spark.driver.extraJavaOptions":  # given as --driver-java-options
            command += ["--conf", f"{key}={value}"]
    return command + ([] if verbose else ["-S"]) + list(extra)


def _sql(args: argparse.Namespace) -> int:
    check_local(args.paths, args.catalog)
    catalogs = _parse_catalogs(args.paths, args.catalog)
    queries = load_queries(args.query, catalogs)
    if args.atomic or args.dry_run:
        return _in_process(args, catalogs, queries)
    with scratch() as folder:
        extra = list(args.spark_args)
        paths = list(args.paths)
        names = _query_names(args, catalogs, queries)
        for key, value in names.items():
            extra += ["--conf", f"{key}={value}"]
        if args.views:
            extra += ["-i", _views_init_file(catalogs, names, folder, args.verbose)]
        if args.force:
            extra += ["--conf", "spark.savepoint.write.force=true"]
        if args.sink:
            extra += ["--conf", f"spark.sql.catalog.{args.catalog}.sink={args.sink}"]
        if args.execute:
            extra += ["-e", args.execute]
        if args.file:
            extra += ["-f", args.file]
        command = spark_sql_command(paths, args.catalog, extra, scratch_dir=folder,
                                    master=args.master, verbose=args.verbose)  # fmt: skip
        env = {**os.environ, "SPARK_HOME": str(pyspark_jars().parent)}
        env.setdefault("PYSPARK_PYTHON", sys.executable)
        return subprocess.call(command, env=env)


def _query_names(
    args: argparse.Namespace, catalogs: dict[str, str], queries: dict[str, QueryBuilder]
) -> dict[str, str]:
    """The settings that give catalogs their ``--query``'s value column names, planned in a
    short local session before the command's own Spark starts; none without ``--query``."""
    if not queries:
        return {}
    return run_in_local_session(
        args, lambda spark: query_names_conf(spark, catalogs, queries, args.output_mode)
    )


def _in_process(
    args: argparse.Namespace, catalogs: dict[str, str], queries: dict[str, QueryBuilder]
) -> int:
    """``sql --dry-run`` (each write planned, nothing written) and ``sql --atomic`` (all writes
    as one batch, or with --dry-run planned as one), run in a local session."""
    from spark_savepoint.sql_ext.dry_run import dry_run_script
    from spark_savepoint.sql_ext.progress import job_progress
    from spark_savepoint.sql_ext.session import attach
    from spark_savepoint.sql_ext.statements import split_statements
    from spark_savepoint.sql_ext.transaction import run_script

    option = "--atomic" if args.atomic else "--dry-run"
    if bool(args.execute) == bool(args.file):
        raise BadArguments(f"{option} needs the SQL: -e SQL or -f FILE; nothing was run.")
    script = args.execute or Path(args.file).read_text()
    split_statements(script)  # a parse error stops here, before Spark starts

    def run(spark: SparkSession) -> str:
        for name, path in catalogs.items():
            build = queries.get(name)
            attach(spark, path, name, sink=args.sink if name == args.catalog else None,
                   query=build(spark) if build else None, output_mode=args.output_mode)  # fmt: skip
        if args.force:
            spark.conf.set("spark.savepoint.write.force", "true")
        with job_progress(spark, "sql"):
            if args.atomic:
                return run_script(spark, script, dry_run=args.dry_run)
            return dry_run_script(spark, script)

    return in_local_session(args, run)


def _views_init_file(
    catalogs: dict[str, str], names: dict[str, str], folder: Path, verbose: bool
) -> str:
    """An init SQL file (in ``folder``) creating, in spark-sql, the flat views the Thrift server
    shows: databases ``NAME_<uid>`` with a view per state, and ``NAME_metadata.metadata``, their
    columns named with the value names settings ``names``. The statements come from a short
    local session (metadata files only, no Spark job)."""
    from spark_savepoint.sql_ext.session import attach, session
    from spark_savepoint.sql_ext.views import create_database_sql, view_statements

    settings = {"spark.ui.enabled": "false", **spark_settings(folder, verbose=verbose)}
    spark = session(master="local[1]", **settings)
    try:
        lines = []
        for name, path in catalogs.items():
            attach(spark, path, name)
        for key, value in names.items():
            spark.conf.set(key, value)
        for name in catalogs:
            for database, statements in view_statements(spark, name).items():
                lines += [create_database_sql(name, database), *statements]
    finally:
        spark.stop()
    init = folder / "views.sql"
    init.write_text(";\n".join(lines) + ";\n")
    return str(init)


def _conf(args: argparse.Namespace) -> int:
    check_local(args.paths, args.catalog)
    conf = conf_for(args.paths, args.catalog)
    for key, value in conf.items():
        if args.format == "defaults":
            print(f"{key} {value}")
        else:
            print(f"--conf {key}={value}")
    return 0


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
            return action(spark)
        finally:
            if running is None:
                spark.stop()


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


def _add_offsets(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    offsets = sub.add_parser(
        "offsets",
        parents=[common],
        help="where the query's sources stand (Kafka offsets, file source log, rate), and the"
        " batch's watermark",
    )
    offsets.add_argument("path", metavar="PATH", help="checkpoint folder")
    offsets.add_argument(
        "--batch", type=int, help="after this committed batch (default: the last committed)"
    )
    offsets.add_argument("--master", default="local[1]", help="Spark master (%(default)s)")
    offsets.set_defaults(run=_offsets)


def _add_recover(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    recover = sub.add_parser(
        "recover",
        parents=[common],
        help="complete the batch an interrupted edit left uncommitted, without the edit; or "
        "empty the folder of an unfinished savepoint, restore or upgrade",
    )
    recover.add_argument("path", metavar="PATH", help="checkpoint folder")
    recover.add_argument(
        "--force",
        action="store_true",
        help="also when the interrupted writer ran on another host (you know it has stopped)",
    )
    recover.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    recover.set_defaults(run=_recover)


THRIFT_CREDENTIAL = (
    "Give one: --password-file FILE (a line user:password or a password, chmod 600), or "
    "--hiveconf hive.server2.authentication=LDAP|KERBEROS with its settings"
)


def _thriftserver(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.thrift import asks_credential, serve

    hiveconf = _pairs(args.hiveconf, "--hiveconf")
    if args.password_file is not None:
        if asks_credential(hiveconf):
            raise BadArguments(
                "--password-file and --hiveconf hive.server2.authentication="
                f"{hiveconf['hive.server2.authentication']} each set how clients log in: give one."
            )
        read_secret(args.password_file, "--password-file")
    credential = args.password_file is not None or asks_credential(hiveconf)
    check_bind(args.bind, credential=credential, insecure=args.insecure,
               server="The Thrift server", how=THRIFT_CREDENTIAL)  # fmt: skip
    check_local(args.paths, args.catalog)
    catalogs = _parse_catalogs(args.paths, args.catalog)
    conf = _pairs(args.conf, "--conf")
    names = _query_names(args, catalogs, load_queries(args.query, catalogs))
    return serve(
        catalogs, port=args.port, bind=args.bind, allow_writes=args.allow_writes,
        password_file=args.password_file, master=args.master, conf={**names, **conf},
        hiveconf=hiveconf, verbose=args.verbose,
    )  # fmt: skip


def _pairs(items: Sequence[str], option: str) -> dict[str, str]:
    pairs = dict(item.partition("=")[::2] for item in items)
    bad = [item for item in items if "=" not in item]
    if bad:
        raise SystemExit(f"spark-savepoint: {option} takes KEY=VALUE, got {bad[0]!r}")
    return pairs


def _add_thriftserver(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    thrift = sub.add_parser(
        "thriftserver", parents=[common],
        help="a JDBC (HiveServer2) server with flat views of the state")  # fmt: skip
    thrift.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    thrift.add_argument("--catalog", default=DEFAULT_CATALOG, help="database name (%(default)s)")
    thrift.add_argument("--port", type=int, default=10000, help="port (%(default)s)")
    thrift.add_argument("--bind", default="127.0.0.1", help="address to listen on (%(default)s)")
    thrift.add_argument(
        "--allow-writes",
        action="store_true",
        help="let JDBC clients write and run DDL (default: read-only)",
    )
    thrift.add_argument(
        "--password-file", type=Path, metavar="FILE",
        help="clients log in with this file's password: a line user:password, or a password "
        "for any user name; only its owner may read it (chmod 600)",
    )  # fmt: skip
    thrift.add_argument(
        "--insecure", action="store_true",
        help="allow --bind beyond loopback with no credential (a throwaway sandbox only)",
    )  # fmt: skip
    thrift.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    thrift.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Spark setting (repeatable)",
    )
    thrift.add_argument(
        "--hiveconf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="HiveServer2 setting, e.g. hive.server2.authentication=LDAP (repeatable)",
    )
    add_query_options(thrift)
    thrift.set_defaults(run=_thriftserver)


def _connect(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.connect import serve

    check_local(args.paths, args.catalog)
    catalogs = _parse_catalogs(args.paths, args.catalog)
    conf = _pairs(args.conf, "--conf")
    names = _query_names(args, catalogs, load_queries(args.query, catalogs))
    if args.token_file is not None:
        read_secret(args.token_file, "--token-file")
    if args.read_only:
        print("spark-savepoint: --read-only is the default now and will be removed; "
              "--allow-writes lets clients write", file=sys.stderr)  # fmt: skip
    return serve(
        catalogs, port=args.port, bind=args.bind, allow_writes=args.allow_writes,
        token_file=args.token_file, master=args.master, conf={**names, **conf},
        verbose=args.verbose,
    )  # fmt: skip


def _add_connect(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    connect = sub.add_parser(
        "connect", parents=[common],
        help="a Spark Connect server with the checkpoints as catalogs, for PySpark clients "
        "(SparkSession.builder.remote)",
    )  # fmt: skip
    connect.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    connect.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    connect.add_argument("--port", type=int, default=15002, help="port (%(default)s)")
    connect.add_argument("--bind", default="127.0.0.1", help="address to listen on (%(default)s)")
    writes = connect.add_mutually_exclusive_group()
    writes.add_argument(
        "--allow-writes", action="store_true",
        help="let clients write (INSERT/UPDATE/DELETE/MERGE, CALL) and run DDL (default: "
        "read-only)",
    )  # fmt: skip
    writes.add_argument("--read-only", action="store_true",
                        help="deprecated: read-only is the default")  # fmt: skip
    connect.add_argument(
        "--token-file", type=Path, metavar="FILE",
        help="the token clients must send, from this owner-only file (default: "
        "$SPARK_CONNECT_AUTHENTICATE_TOKEN, else a new one per start, written to "
        "~/.spark-savepoint/connect-PORT.token)",
    )  # fmt: skip
    connect.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    connect.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE",
        help="Spark setting (repeatable)",
    )  # fmt: skip
    add_query_options(connect)
    connect.set_defaults(run=_connect)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spark-savepoint",
        description="Read Spark Structured Streaming checkpoints as SQL tables "
        "<catalog>.<uid>.<state>.",
        epilog="Options after -- go to spark-sql unchanged.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-v", "--verbose", action="store_true", help="Spark's default logs and full error traces"
    )

    sql = sub.add_parser(
        "sql", parents=[common], help="spark-sql with checkpoints attached as catalogs"
    )
    sql.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    sql.add_argument("-e", "--execute", help="run this SQL and exit")
    sql.add_argument("-f", "--file", help="run the SQL in this file and exit")
    sql.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    sql.add_argument(
        "--views", action="store_true",
        help="also create the Thrift server's flat views for BI tools: database NAME_<uid> "
        "with a view per state, and NAME_metadata.metadata",
    )  # fmt: skip
    sql.add_argument(
        "--sink",
        metavar="OUTPUT",
        help="the output folder of the query's file sink: its log becomes <catalog>.sink.files",
    )
    sql.add_argument(
        "--force",
        action="store_true",
        help="write even when the checkpoint's query looks alive (you know it has stopped)",
    )
    sql.add_argument(
        "--dry-run", action="store_true",
        help="with -e/-f: plan each INSERT/DELETE/UPDATE/MERGE (keys added, changed, removed, "
        "samples) in a local session and write nothing",
    )  # fmt: skip
    sql.add_argument(
        "--atomic", action="store_true",
        help="with -e/-f: run the script's INSERT/DELETE/UPDATE/MERGE statements in a local "
        "session as one transaction: one new batch, or none if any fails",
    )  # fmt: skip
    sql.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    add_query_options(sql)
    sql.set_defaults(run=_sql)

    conf = sub.add_parser(
        "conf", parents=[common], help="print the settings for spark-submit / spark-defaults"
    )
    conf.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    conf.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    conf.add_argument(
        "--format", choices=("submit", "defaults"), default="submit",
        help="submit: --conf k=v lines; defaults: spark-defaults.conf lines",
    )  # fmt: skip
    conf.set_defaults(run=_conf)

    create = sub.add_parser(
        "create",
        parents=[common],
        help="create an empty savepoint shaped like a checkpoint, to bootstrap with INSERT",
    )
    create.add_argument("target", help="new folder (must not exist or be empty)")
    create.add_argument(
        "--like",
        required=True,
        metavar="CHECKPOINT",
        help="checkpoint of the same query: operators, schemas, source positions",
    )
    create.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    create.set_defaults(run=_create)

    _add_recover(sub, common)
    _add_offsets(sub, common)
    add_savepoint(sub, common)
    add_upgrade(sub, common)
    add_inspect(sub, common)
    _add_thriftserver(sub, common)
    _add_connect(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ours, passthrough = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv \
        else (argv, [])  # fmt: skip
    args = build_parser().parse_args(ours)
    args.spark_args = passthrough
    try:
        return int(args.run(args))
    except Exception as error:
        converted = savepoint_error(error)
        if converted is None:
            raise
        if args.verbose:
            traceback.print_exc()
        print(f"spark-savepoint: {converted}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
