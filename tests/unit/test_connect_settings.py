"""Pure pieces of the Spark Connect server: its settings and command-line defaults."""

from __future__ import annotations

import sys

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.cli import build_parser
from spark_savepoint.sql_ext.connect import connect_url, server_conf


def test_server_settings_attach_each_catalog_and_bind_the_service() -> None:
    conf = server_conf({"savepoint": "/a", "orders": "/b"}, port=15003, bind="127.0.0.1")
    assert conf["spark.sql.catalog.savepoint"] == bridge.CATALOG_CLASS
    assert (conf["spark.sql.catalog.savepoint.path"], conf["spark.sql.catalog.orders.path"]) == (
        "/a",
        "/b",
    )
    assert conf["spark.connect.grpc.binding.address"] == "127.0.0.1"
    assert conf["spark.connect.grpc.binding.port"] == "15003"
    assert conf["spark.pyspark.python"] == sys.executable
    assert conf["spark.sql.extensions"] == bridge.EXTENSIONS_CLASS
    assert "spark.savepoint.readOnly" not in conf


def test_read_only_adds_the_guard() -> None:
    conf = server_conf({"savepoint": "/a"}, port=1, bind="127.0.0.1", read_only=True)
    assert conf["spark.sql.extensions"].split(",") == [
        bridge.EXTENSIONS_CLASS,
        bridge.READ_ONLY_GUARD_CLASS,
    ]
    assert conf["spark.savepoint.readOnly"] == "true"


def test_connect_command_defaults() -> None:
    args = build_parser().parse_args(["connect", "/a", "orders=/b"])
    assert (args.paths, args.catalog, args.port, args.bind, args.read_only) == (
        ["/a", "orders=/b"],
        "savepoint",
        15002,
        "127.0.0.1",
        False,
    )
    assert connect_url("0.0.0.0", 15002) == "sc://127.0.0.1:15002"
