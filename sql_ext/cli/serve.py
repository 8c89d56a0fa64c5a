"""``spark-savepoint thriftserver`` and ``connect``: the checkpoints served to clients, JDBC
(HiveServer2) or Spark Connect, by the servers of :mod:`spark_savepoint.sql_ext.servers`.

Both are read-only unless ``--allow-writes``; the options are checked (credentials, bind
address, checkpoint folders, ``--query`` modules) before Spark starts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext.cli.local import check_local, parse_catalogs, query_names
from spark_savepoint.sql_ext.cli.options import check_port, command, key_values
from spark_savepoint.sql_ext.cli.queries import add_query_options, load_queries
from spark_savepoint.sql_ext.servers.credentials import check_bind, read_secret
from spark_savepoint.sql_ext.session import DEFAULT_CATALOG

THRIFT_CREDENTIAL = (
    "Give one: --password-file FILE (a line user:password or a password, chmod 600), or "
    "--hiveconf hive.server2.authentication=LDAP|KERBEROS with its settings"
)


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``thriftserver`` and ``connect`` to the CLI's parser."""
    _add_thriftserver(subparsers)
    _add_connect(subparsers)


def _add_thriftserver(subparsers: argparse._SubParsersAction) -> None:
    thrift = command(subparsers, "thriftserver",
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


def _thriftserver(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.servers.thrift import asks_credential, serve

    hiveconf = key_values(args.hiveconf, "--hiveconf")
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
    check_port(args.port)
    check_local(args.paths, args.catalog)
    catalogs = parse_catalogs(args.paths, args.catalog)
    conf = key_values(args.conf, "--conf")
    names = query_names(args, catalogs, load_queries(args.query, catalogs))
    return serve(
        catalogs, port=args.port, bind=args.bind, allow_writes=args.allow_writes,
        password_file=args.password_file, master=args.master, conf={**names, **conf},
        hiveconf=hiveconf, verbose=args.verbose,
    )  # fmt: skip


def _add_connect(subparsers: argparse._SubParsersAction) -> None:
    connect = command(
        subparsers, "connect",
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


def _connect(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.servers.connect import serve

    check_port(args.port)
    check_local(args.paths, args.catalog)
    catalogs = parse_catalogs(args.paths, args.catalog)
    conf = key_values(args.conf, "--conf")
    names = query_names(args, catalogs, load_queries(args.query, catalogs))
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
