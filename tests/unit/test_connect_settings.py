"""Pure pieces of the Spark Connect server: its settings and command-line defaults."""

from __future__ import annotations

import sys

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.cli import build_parser
from spark_savepoint.sql_ext.servers.connect import connect_url, server_conf


def test_server_settings_attach_each_catalog_and_bind_the_service() -> None:
    conf = server_conf(
        {"savepoint": "/a", "orders": "/b"}, port=15003, bind="127.0.0.1", token="t0k"
    )
    assert conf["spark.sql.catalog.savepoint"] == bridge.CATALOG_CLASS
    assert (conf["spark.sql.catalog.savepoint.path"], conf["spark.sql.catalog.orders.path"]) == (
        "/a",
        "/b",
    )
    assert conf["spark.connect.grpc.binding.address"] == "127.0.0.1"
    assert conf["spark.connect.grpc.binding.port"] == "15003"
    assert conf["spark.pyspark.python"] == sys.executable
    assert conf["spark.connect.authenticate.token"] == "t0k"


def test_read_only_by_default_with_the_guard() -> None:
    conf = server_conf({"savepoint": "/a"}, port=1, bind="127.0.0.1", token="t")
    assert conf["spark.sql.extensions"].split(",") == [
        bridge.EXTENSIONS_CLASS,
        bridge.READ_ONLY_GUARD_CLASS,
    ]
    assert conf["spark.savepoint.readOnly"] == "true"
    writable = server_conf({"savepoint": "/a"}, port=1, bind="127.0.0.1", token="t",
                           allow_writes=True)  # fmt: skip
    assert writable["spark.sql.extensions"] == bridge.EXTENSIONS_CLASS
    assert writable["spark.savepoint.readOnly"] == "false"


def test_connect_command_defaults() -> None:
    args = build_parser().parse_args(["connect", "/a", "orders=/b"])
    assert (args.paths, args.catalog, args.port, args.bind, args.allow_writes) == (
        ["/a", "orders=/b"],
        "savepoint",
        15002,
        "127.0.0.1",
        False,
    )
    assert args.token_file is None


def test_the_url_names_localhost_for_loopback_and_wildcard_binds() -> None:
    """pyspark sends a token without TLS only to the host ``localhost``."""
    for bind in ("127.0.0.1", "0.0.0.0", "::1", "localhost"):
        assert connect_url(bind, 15002, "t") == "sc://localhost:15002/;token=t", bind
    assert connect_url("10.1.2.3", 15002, "t") == "sc://10.1.2.3:15002/;token=t"
