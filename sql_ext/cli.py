"""``spark-savepoint``: the command line.

    spark-savepoint sql <path> [-e SQL] [--catalog NAME] [--views] [-- spark-sql args]
    spark-savepoint conf <path> [--catalog NAME] [--format submit|defaults]
    spark-savepoint thriftserver <path>... [--port 10000] [--bind 127.0.0.1] [--allow-writes]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from catalog.errors import SavepointError
from catalog.jar import pyspark_jars
from sql_ext.session import DEFAULT_CATALOG, spark_conf
from sql_ext.thrift import state_catalog


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
    """All Spark settings for the given checkpoints (jar + one catalog each)."""
    conf = spark_conf()
    for name, path in _parse_catalogs(paths, catalog).items():
        conf.update(spark_conf(path, name))
    return conf


def spark_sql_command(paths: Sequence[str], catalog: str, extra: Sequence[str]) -> list[str]:
    """The spark-sql command line (from the installed pyspark) with the catalogs attached."""
    spark_sql = Path(pyspark_jars()).parent / "bin" / "spark-sql"
    command = [str(spark_sql)]
    for key, value in conf_for(paths, catalog).items():
        if key == "spark.driver.extraClassPath":
            command += ["--driver-class-path", value]
        elif key == "spark.jars":
            command += ["--jars", value]
        else:
            command += ["--conf", f"{key}={value}"]
    return command + list(extra)


def _sql(args: argparse.Namespace) -> int:
    extra = list(args.spark_args)
    paths = list(args.paths)
    if args.views:
        catalogs = _parse_catalogs(paths, args.catalog)
        extra += ["-i", _views_init_file(catalogs)]
        paths = [f"{state_catalog(name)}={path}" for name, path in catalogs.items()]
    if args.force:
        extra += ["--conf", "spark.savepoint.write.force=true"]
    if args.execute:
        extra += ["-e", args.execute]
    if args.file:
        extra += ["-f", args.file]
    command = spark_sql_command(paths, args.catalog, extra)
    env = {**os.environ, "SPARK_HOME": str(pyspark_jars().parent)}
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    return subprocess.call(command, env=env)


def _views_init_file(catalogs: dict[str, str]) -> str:
    """An init SQL file creating, in spark-sql, the flat views the Thrift server shows:
    database NAME with ``<uid>_<state>`` views over catalog ``NAME_catalog``. The statements
    come from a short local session (metadata files only, no Spark job)."""
    from sql_ext.session import attach, session
    from sql_ext.views import view_statements

    spark = session(master="local[1]", **{"spark.ui.enabled": "false"})
    try:
        lines = []
        for name, path in catalogs.items():
            attach(spark, path, state_catalog(name))
            lines.append(f"CREATE DATABASE IF NOT EXISTS spark_catalog.{name}")
            lines += view_statements(spark, state_catalog(name), name)
    finally:
        spark.stop()
    init = tempfile.NamedTemporaryFile("w", prefix="savepoint-views-", suffix=".sql", delete=False)
    with init:
        init.write(";\n".join(lines) + ";\n")
    return init.name


def _conf(args: argparse.Namespace) -> int:
    conf = conf_for(args.paths, args.catalog)
    for key, value in conf.items():
        if args.format == "defaults":
            print(f"{key} {value}")
        else:
            print(f"--conf {key}={value}")
    return 0


def _create(args: argparse.Namespace) -> int:
    from pyspark.sql import SparkSession

    from sql_ext.empty import create_savepoint
    from sql_ext.session import session

    running = SparkSession.getActiveSession()
    spark = session(master=args.master)
    try:
        print(create_savepoint(spark, args.target, args.like))
    finally:
        if running is None:
            spark.stop()
    return 0


def _recover(args: argparse.Namespace) -> int:
    from pyspark.sql import SparkSession

    from sql_ext.edits import recover
    from sql_ext.session import session

    running = SparkSession.getActiveSession()
    spark = session(master=args.master)
    try:
        print(recover(spark, args.path, force=args.force))
    finally:
        if running is None:
            spark.stop()
    return 0


def _add_recover(sub: argparse._SubParsersAction) -> None:
    recover = sub.add_parser(
        "recover", help="complete the batch an interrupted edit left uncommitted, without it")
    recover.add_argument("path", metavar="PATH", help="checkpoint folder")
    recover.add_argument("--force", action="store_true",
                         help="also when the interrupted writer ran on another host"
                         " (you know it has stopped)")
    recover.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    recover.set_defaults(run=_recover)


def _thriftserver(args: argparse.Namespace) -> int:
    from sql_ext.thrift import serve

    return serve(
        _parse_catalogs(args.paths, args.catalog), port=args.port, bind=args.bind,
        allow_writes=args.allow_writes, master=args.master,
        conf=_pairs(args.conf, "--conf"), hiveconf=_pairs(args.hiveconf, "--hiveconf"),
    )  # fmt: skip


def _pairs(items: Sequence[str], option: str) -> dict[str, str]:
    pairs = dict(item.partition("=")[::2] for item in items)
    bad = [item for item in items if "=" not in item]
    if bad:
        raise SystemExit(f"spark-savepoint: {option} takes KEY=VALUE, got {bad[0]!r}")
    return pairs


def _add_thriftserver(sub: argparse._SubParsersAction) -> None:
    thrift = sub.add_parser(
        "thriftserver", help="a JDBC (HiveServer2) server with flat views of the state")
    thrift.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    thrift.add_argument("--catalog", default=DEFAULT_CATALOG, help="database name (%(default)s)")
    thrift.add_argument("--port", type=int, default=10000, help="port (%(default)s)")
    thrift.add_argument("--bind", default="127.0.0.1", help="address to listen on (%(default)s)")
    thrift.add_argument("--allow-writes", action="store_true",
                        help="let JDBC clients write and run DDL (default: read-only)")
    thrift.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    thrift.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="Spark setting (repeatable)")
    thrift.add_argument("--hiveconf", action="append", default=[], metavar="KEY=VALUE",
                        help="HiveServer2 setting, e.g. hive.server2.authentication=LDAP")
    thrift.set_defaults(run=_thriftserver)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spark-savepoint",
        description="Read Spark Structured Streaming checkpoints as SQL tables "
        "<catalog>.<uid>.<state>.",
        epilog="Options after -- go to spark-sql unchanged.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sql = sub.add_parser("sql", help="spark-sql with checkpoints attached as catalogs")
    sql.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    sql.add_argument("-e", "--execute", help="run this SQL and exit")
    sql.add_argument("-f", "--file", help="run the SQL in this file and exit")
    sql.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    sql.add_argument(
        "--views", action="store_true",
        help="also create the Thrift server's flat views: database NAME with <uid>_<state> "
        "views, the catalog then named NAME_catalog",
    )  # fmt: skip
    sql.add_argument(
        "--force", action="store_true",
        help="write even when the checkpoint's query looks alive (you know it has stopped)")
    sql.set_defaults(run=_sql)

    conf = sub.add_parser("conf", help="print the settings for spark-submit / spark-defaults")
    conf.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    conf.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    conf.add_argument(
        "--format", choices=("submit", "defaults"), default="submit",
        help="submit: --conf k=v lines; defaults: spark-defaults.conf lines",
    )  # fmt: skip
    conf.set_defaults(run=_conf)

    create = sub.add_parser(
        "create", help="create an empty savepoint shaped like a checkpoint, to bootstrap with INSERT")
    create.add_argument("target", help="new folder (must not exist or be empty)")
    create.add_argument("--like", required=True, metavar="CHECKPOINT",
                        help="checkpoint of the same query: operators, schemas, source positions")
    create.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    create.set_defaults(run=_create)

    _add_recover(sub)
    _add_thriftserver(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ours, passthrough = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv \
        else (argv, [])  # fmt: skip
    args = build_parser().parse_args(ours)
    args.spark_args = passthrough
    try:
        return int(args.run(args))
    except SavepointError as error:
        print(f"spark-savepoint: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
