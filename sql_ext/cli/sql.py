"""``spark-savepoint sql`` and ``conf``: the checkpoints attached as catalogs in Spark's own
tools. ``sql`` runs spark-sql (from the installed pyspark) with them, or with ``--dry-run`` /
``--atomic`` runs the script in a local session; ``conf`` prints the settings for
``spark-submit`` or ``spark-defaults.conf``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_savepoint.catalog import settings
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.catalog.jar import SPARK_VERSIONS, pyspark_jars
from spark_savepoint.sql_ext.cli.local import (
    check_local,
    in_local_session,
    parse_catalogs,
    query_names,
)
from spark_savepoint.sql_ext.cli.options import command
from spark_savepoint.sql_ext.cli.progress import job_progress
from spark_savepoint.sql_ext.cli.queries import QueryBuilder, add_query_options, load_queries
from spark_savepoint.sql_ext.quiet import java_options, scratch, spark_settings
from spark_savepoint.sql_ext.session import (
    DEFAULT_CATALOG,
    catalog_conf,
    is_local,
    jar_conf,
    local_files_conf,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``sql`` and ``conf`` to the CLI's parser."""
    sql = command(subparsers, "sql", help="spark-sql with checkpoints attached as catalogs")
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

    conf = command(subparsers, "conf", help="print the settings for spark-submit / spark-defaults")
    conf.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    conf.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    conf.add_argument(
        "--format", choices=("submit", "defaults"), default="submit",
        help="submit: --conf k=v lines; defaults: spark-defaults.conf lines",
    )  # fmt: skip
    conf.add_argument(
        "--spark-version", metavar="X.Y",
        help="the Spark the job runs on: its jar (default: the local pyspark's, "
        f"{pyspark_version()}); one of {', '.join(SPARK_VERSIONS)}",
    )  # fmt: skip
    conf.set_defaults(run=_conf)


def pyspark_version() -> str:
    """The installed pyspark's version."""
    import pyspark

    return str(pyspark.__version__)


def conf_for(
    paths: Sequence[str], catalog: str = DEFAULT_CATALOG, spark_version: str | None = None
) -> dict[str, str]:
    """All Spark settings for the given checkpoints: the jar of Spark ``spark_version``
    (default: the installed pyspark's), the forkless local file system when every checkpoint is
    local (it serves ``file:`` paths only), and one catalog each."""
    catalogs = parse_catalogs(paths, catalog)
    conf = jar_conf(spark_version)
    if all(is_local(path) for path in catalogs.values()):
        conf.update(local_files_conf())
    for name, path in catalogs.items():
        conf.update(catalog_conf(path, name))
    return conf


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
    catalogs = parse_catalogs(args.paths, args.catalog)
    queries = load_queries(args.query, catalogs)
    if args.atomic or args.dry_run:
        return _in_process(args, catalogs, queries)
    with scratch() as folder:
        extra = list(args.spark_args)
        paths = list(args.paths)
        names = query_names(args, catalogs, queries)
        for key, value in names.items():
            extra += ["--conf", f"{key}={value}"]
        if args.views:
            extra += ["-i", _views_init_file(catalogs, names, folder, args.verbose)]
        if args.force:
            extra += ["--conf", f"{settings.WRITE_FORCE}=true"]
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


def _in_process(
    args: argparse.Namespace, catalogs: dict[str, str], queries: dict[str, QueryBuilder]
) -> int:
    """``sql --dry-run`` (each write planned, nothing written) and ``sql --atomic`` (all writes
    as one batch, or with --dry-run planned as one), run in a local session."""
    from spark_savepoint.sql_ext.dry_run import dry_run_script
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
            spark.conf.set(settings.WRITE_FORCE, "true")
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
    from spark_savepoint.sql_ext.servers.views import create_database_sql, view_statements
    from spark_savepoint.sql_ext.session import attach, session

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
    conf = conf_for(args.paths, args.catalog, args.spark_version)
    for key, value in conf.items():
        if args.format == "defaults":
            print(f"{key} {value}")
        else:
            print(f"--conf {key}={value}")
    return 0
