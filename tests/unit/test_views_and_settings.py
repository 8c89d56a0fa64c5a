"""Pure pieces of the Thrift server and its views: names, flattened columns, settings."""

from __future__ import annotations

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.cli import build_parser
from spark_savepoint.sql_ext.servers.thrift import server_conf
from spark_savepoint.sql_ext.servers.views import (
    flat_columns,
    metadata_database,
    select_sql,
    view_database,
    view_name,
)


def test_view_names_need_no_quoting() -> None:
    assert view_name("left_keyToNumValues") == "left_keytonumvalues"
    assert view_name("a-b c") == "a_b_c"
    assert view_name("0") == "c_0"
    assert view_database("savepoint", "join_0") == "savepoint_join_0"
    assert view_database("Orders", "0") == "orders_0"
    assert metadata_database("savepoint") == "savepoint_metadata"


def test_structs_flatten_by_path() -> None:
    from pyspark.sql.types import IntegerType, MapType, StringType, StructType, TimestampType

    window = StructType().add("start", TimestampType()).add("end", TimestampType())
    schema = (
        StructType()
        .add("window", window)
        .add("user", StringType())
        .add("window_start", IntegerType())
        .add("m", MapType(StringType(), IntegerType()))
    )
    assert [name for _, name in flat_columns(schema)] == [
        "window_start",
        "window_end",
        "user",
        "window_start_2",
        "m",
    ]
    assert select_sql("c.`agg_0`.`default`", schema) == (
        "SELECT `window`.`start` AS window_start, `window`.`end` AS window_end, `user`,"
        " `window_start` AS window_start_2, `m` FROM c.`agg_0`.`default`"
    )


def test_server_is_read_only_unless_asked() -> None:
    conf = server_conf({"savepoint": "/ckpt"}, state_dir="/s")
    assert conf["spark.savepoint.readOnly"] == "true"
    assert conf["spark.sql.extensions"].split(",") == [
        bridge.EXTENSIONS_CLASS,
        bridge.READ_ONLY_GUARD_CLASS,
    ]
    assert conf["spark.sql.catalog.savepoint.path"] == "/ckpt"
    writable = server_conf({"savepoint": "/ckpt"}, state_dir="/s", allow_writes=True)
    assert writable["spark.savepoint.readOnly"] == "false"
    assert writable["spark.sql.extensions"] == bridge.EXTENSIONS_CLASS  # as connect's


def test_thriftserver_arguments() -> None:
    args = build_parser().parse_args(["thriftserver", "/a", "j=/b", "--port", "1234"])
    assert (args.paths, args.port, args.bind, args.allow_writes) == (
        ["/a", "j=/b"],
        1234,
        "127.0.0.1",
        False,
    )


def test_a_view_is_recreated_only_when_its_query_changed() -> None:
    from spark_savepoint.sql_ext.servers.views import _created_view, _unchanged

    statement = "CREATE OR REPLACE VIEW spark_catalog.sp.agg_0_default AS SELECT `user` FROM c.a.b"
    assert _created_view(statement) == "agg_0_default"
    assert _unchanged("SELECT  user FROM c.`a`.`b`", statement)  # spacing and quoting aside
    assert not _unchanged("SELECT user, count FROM c.a.b", statement)
    assert not _unchanged(None, statement)
    keyword = "CREATE OR REPLACE VIEW spark_catalog.`join`.`metadata` AS SELECT * FROM c.metadata"
    assert _created_view(keyword) == "metadata"  # a database named like a keyword, quoted
