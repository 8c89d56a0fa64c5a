"""The command line without Spark: argument parsing and refusals before any JVM starts."""

from __future__ import annotations

import pytest

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext.cli import build_parser, conf_for, main, spark_sql_command
from spark_savepoint.sql_ext.queries import catalog_queries


def test_conf_refuses_a_missing_folder_in_one_line(capsys, tmp_path) -> None:
    assert main(["conf", str(tmp_path / "nowhere")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"spark-savepoint: [SAVEPOINT_NO_SUCH_CHECKPOINT] Checkpoint folder "
        f"'{tmp_path / 'nowhere'}' does not exist. Point the catalog's path at a streaming "
        "query's checkpointLocation."
    ]


def test_sql_arguments_and_defaults() -> None:
    args = build_parser().parse_args(["sql", "/ckpt", "-e", "SELECT 1", "--force"])
    assert (args.paths, args.execute, args.catalog, args.force, args.views) == (
        ["/ckpt"],
        "SELECT 1",
        "savepoint",
        True,
        False,
    )


def test_sql_takes_a_master_as_the_other_commands_do(tmp_path) -> None:
    parser = build_parser()
    assert parser.parse_args(["sql", "/ckpt"]).master == "local[*]"
    args = parser.parse_args(["sql", "/ckpt", "--master", "local[2]", "-e", "SELECT 1"])
    assert (args.master, args.execute) == ("local[2]", "SELECT 1")
    for command in (["create", "/t", "--like", "/c"], ["recover", "/c"], ["connect", "/c"]):
        assert parser.parse_args(command).master == "local[*]", command
    command = spark_sql_command(["/ckpt"], "savepoint", ["--master", "yarn"], scratch_dir=tmp_path,
                                master="local[2]")  # fmt: skip
    masters = [command[i + 1] for i, arg in enumerate(command) if arg == "--master"]
    assert masters == ["local[2]", "yarn"]  # spark-submit takes the last: the one after --


def test_catalog_names_for_several_checkpoints() -> None:
    """Plain paths get savepoint, savepoint2, ...; NAME=PATH names its own (a path with '='
    in a folder name stays a path)."""
    conf = conf_for(["/a", "orders=/b", "/c", "/d=e/f"])
    paths = {
        key.split(".")[3]: value
        for key, value in conf.items()
        if key.startswith("spark.sql.catalog.") and key.endswith(".path")
    }
    assert paths == {"savepoint": "/a", "orders": "/b", "savepoint2": "/c", "savepoint3": "/d=e/f"}
    assert conf["spark.sql.catalog.orders"] == bridge.CATALOG_CLASS


LOCAL_FILES = ("spark.hadoop.fs.file.impl", "spark.hadoop.fs.AbstractFileSystem.file.impl")


def test_the_local_file_system_is_set_for_local_checkpoints_only() -> None:
    """The forkless local file system serves ``file:`` paths: ``conf`` prints it only when every
    checkpoint is local, so a cluster job on HDFS or S3 keeps Hadoop's own."""
    for paths in (["file:///data/ckpt"], ["/data/ckpt"], ["/a", "orders=file:/b"]):
        conf = conf_for(paths)
        assert [conf.get(key) for key in LOCAL_FILES] == [
            bridge.LOCAL_FILE_SYSTEM_CLASS,
            bridge.LOCAL_FS_CLASS,
        ], paths
    for paths in (["hdfs://nn:8020/ckpt"], ["s3a://bucket/ckpt"], ["/a", "orders=s3a://b/c"]):
        conf = conf_for(paths)
        assert not set(LOCAL_FILES) & set(conf), paths
        assert conf["spark.sql.extensions"] == bridge.EXTENSIONS_CLASS, paths


def test_conf_prints_no_local_file_system_for_remote_checkpoints(capsys) -> None:
    assert main(["conf", "hdfs://nn:8020/ckpt", "--format", "defaults"]) == 0
    printed = dict(line.split(" ", 1) for line in capsys.readouterr().out.splitlines())
    assert printed["spark.sql.catalog.savepoint.path"] == "hdfs://nn:8020/ckpt"
    assert not set(LOCAL_FILES) & set(printed)


def test_query_options_of_the_commands_that_open_catalogs() -> None:
    for command in (["sql", "/a"], ["thriftserver", "/a"], ["connect", "/a"]):
        args = build_parser().parse_args([*command, "--query", "jobs:build", "--query", "b=q:f"])
        assert (args.query, args.output_mode) == (["jobs:build", "b=q:f"], "append"), command


def test_queries_belong_to_the_first_catalog_or_the_one_named() -> None:
    catalogs = {"savepoint": "/a", "orders": "/b"}
    assert catalog_queries(["q:f", "orders=jobs/o.py:build"], catalogs) == {
        "savepoint": "q:f",
        "orders": "jobs/o.py:build",
    }
    assert catalog_queries(["/d=e/q.py:f"], catalogs) == {"savepoint": "/d=e/q.py:f"}


def test_a_query_for_no_catalog_or_twice_for_one_is_refused(capsys, tmp_path) -> None:
    with pytest.raises(BadArguments, match=r"--query billing=q:f: no catalog 'billing' is given"
                       r" \(catalogs: savepoint, orders\); use NAME=MODULE:FUNCTION"):  # fmt: skip
        catalog_queries(["billing=q:f"], {"savepoint": "/a", "orders": "/b"})
    with pytest.raises(BadArguments, match=r"--query r:g: catalog 'savepoint' has a query already"
                       r" \(q:f\)"):  # fmt: skip
        catalog_queries(["q:f", "r:g"], {"savepoint": "/a"})
    (tmp_path / "offsets").mkdir()
    (tmp_path / "commits").mkdir()
    assert main(["sql", str(tmp_path), "--query", "nosuchmodule:build", "-e", "SELECT 1"]) == 1
    assert capsys.readouterr().err.startswith(
        "spark-savepoint: [SAVEPOINT_BAD_ARGUMENTS] --query nosuchmodule:build: No module named"
    )
