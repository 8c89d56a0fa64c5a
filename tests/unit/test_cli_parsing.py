"""The command line without Spark: argument parsing and refusals before any JVM starts."""

from __future__ import annotations

from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.cli import build_parser, conf_for, main


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
