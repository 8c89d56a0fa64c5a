"""``spark-savepoint``: the command line.

    spark-savepoint sql <path> [-e SQL] [--catalog NAME] [-- spark-sql args]
    spark-savepoint conf <path> [--catalog NAME] [--format submit|defaults]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from catalog.errors import SavepointError
from catalog.jar import pyspark_jars
from sql_ext.session import DEFAULT_CATALOG, spark_conf


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
    if args.execute:
        extra += ["-e", args.execute]
    if args.file:
        extra += ["-f", args.file]
    command = spark_sql_command(args.paths, args.catalog, extra)
    env = {**os.environ, "SPARK_HOME": str(pyspark_jars().parent)}
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    return subprocess.call(command, env=env)


def _conf(args: argparse.Namespace) -> int:
    conf = conf_for(args.paths, args.catalog)
    for key, value in conf.items():
        if args.format == "defaults":
            print(f"{key} {value}")
        else:
            print(f"--conf {key}={value}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spark-savepoint",
        description="Read Spark Structured Streaming checkpoints as SQL tables "
        "<catalog>.<uid>.<state>.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sql = sub.add_parser("sql", help="spark-sql with checkpoints attached as catalogs")
    sql.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    sql.add_argument("-e", "--execute", help="run this SQL and exit")
    sql.add_argument("-f", "--file", help="run the SQL in this file and exit")
    sql.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    sql.add_argument("spark_args", nargs=argparse.REMAINDER, help="after --: spark-sql options")
    sql.set_defaults(run=_sql)

    conf = sub.add_parser("conf", help="print the settings for spark-submit / spark-defaults")
    conf.add_argument("paths", nargs="+", metavar="PATH", help="checkpoint folder, or NAME=PATH")
    conf.add_argument("--catalog", default=DEFAULT_CATALOG, help="catalog name (%(default)s)")
    conf.add_argument(
        "--format", choices=("submit", "defaults"), default="submit",
        help="submit: --conf k=v lines; defaults: spark-defaults.conf lines",
    )  # fmt: skip
    conf.set_defaults(run=_conf)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "spark_args", None) and args.spark_args[0] == "--":
        args.spark_args = args.spark_args[1:]
    try:
        return int(args.run(args))
    except SavepointError as error:
        print(f"spark-savepoint: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
