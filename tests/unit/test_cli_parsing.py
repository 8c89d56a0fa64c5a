"""The command line without Spark: argument parsing and refusals before any JVM starts."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path

import pytest

from spark_savepoint.catalog import bridge, jar
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext import cli
from spark_savepoint.sql_ext.cli import build_parser, main
from spark_savepoint.sql_ext.cli.queries import catalog_queries
from spark_savepoint.sql_ext.cli.sql import conf_for, spark_sql_command


def _refusal(capsys, argv: list[str]) -> list[str]:
    """The stderr lines of a command that fails (exit code 1) and prints nothing on stdout."""
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.splitlines()


def test_conf_refuses_a_missing_folder_in_one_line(capsys, tmp_path) -> None:
    assert _refusal(capsys, ["conf", str(tmp_path / "nowhere")]) == [
        f"spark-savepoint: [SAVEPOINT_NO_SUCH_CHECKPOINT] Checkpoint folder "
        f"'{tmp_path / 'nowhere'}' does not exist. Give the folder of a streaming query's "
        "checkpointLocation (or of a savepoint): the catalog's path, the command's argument."
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


# ---- servers: credentials, binding, writes ----


def _checkpoint(folder: Path) -> Path:
    for log in ("offsets", "commits"):
        (folder / log).mkdir(parents=True)
    return folder


def _secret(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def test_servers_are_read_only_unless_allow_writes() -> None:
    parser = build_parser()
    for command in ("thriftserver", "connect"):
        assert parser.parse_args([command, "/a"]).allow_writes is False, command
        assert parser.parse_args([command, "/a", "--allow-writes"]).allow_writes is True, command
    assert parser.parse_args(["connect", "/a", "--read-only"]).read_only is True
    with pytest.raises(SystemExit):
        parser.parse_args(["connect", "/a", "--read-only", "--allow-writes"])


def test_server_credential_options() -> None:
    parser = build_parser()
    thrift = parser.parse_args(["thriftserver", "/a", "--password-file", "/p", "--insecure"])
    assert (thrift.password_file, thrift.insecure) == (Path("/p"), True)
    assert parser.parse_args(["thriftserver", "/a"]).password_file is None
    assert parser.parse_args(["connect", "/a", "--token-file", "/t"]).token_file == Path("/t")


@pytest.mark.parametrize("bind", ["0.0.0.0", "10.1.2.3", "::", "db.example.com"])
def test_thriftserver_beyond_loopback_without_a_credential_is_one_line(
    capsys, tmp_path, bind: str
) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt")
    assert _refusal(capsys, ["thriftserver", str(ckpt), "--bind", bind]) == [
        f"spark-savepoint: [SAVEPOINT_INSECURE_BIND] The Thrift server would accept anyone who "
        f"reaches {bind}: it has no credential. Give one: --password-file FILE (a line "
        "user:password or a password, chmod 600), or --hiveconf "
        "hive.server2.authentication=LDAP|KERBEROS with its settings; or bind to loopback "
        "(--bind 127.0.0.1) and tunnel (ssh -L); --insecure allows it for a throwaway sandbox."
    ]


def test_a_credential_or_insecure_lets_the_bind_pass() -> None:
    from spark_savepoint.sql_ext.servers.credentials import check_bind

    for bind in ("127.0.0.1", "127.0.0.2", "::1", "localhost"):
        check_bind(bind, credential=False, insecure=False, server="S", how="H")
    check_bind("0.0.0.0", credential=True, insecure=False, server="S", how="H")


def test_insecure_warns(capsys) -> None:
    from spark_savepoint.sql_ext.servers.credentials import check_bind

    check_bind("0.0.0.0", credential=False, insecure=True, server="The Thrift server", how="H")
    assert capsys.readouterr().err.splitlines() == [
        "spark-savepoint: WARNING: The Thrift server on 0.0.0.0 lets in anyone who reaches it "
        "(--insecure): use it for a throwaway sandbox only."
    ]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604], ids=lambda mode: f"{mode:04o}")
def test_a_password_file_others_can_read_is_refused(capsys, tmp_path, mode: int) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt")
    secret = _secret(tmp_path / "pw", "alice:s3cret\n", mode)
    assert _refusal(capsys, ["thriftserver", str(ckpt), "--password-file", str(secret)]) == [
        f"spark-savepoint: [SAVEPOINT_CREDENTIAL_FILE] --password-file {secret} can be read by "
        f"other users (mode {mode:04o}): only its owner may: chmod 600 {secret}."
    ]


def test_a_missing_or_empty_secret_file_is_refused(capsys, tmp_path) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt")
    missing = tmp_path / "none"
    assert _refusal(capsys, ["thriftserver", str(ckpt), "--password-file", str(missing)]) == [
        f"spark-savepoint: [SAVEPOINT_CREDENTIAL_FILE] --password-file {tmp_path / 'none'}: "
        "No such file or directory."
    ]
    empty = _secret(tmp_path / "empty", "\n\n")
    assert _refusal(capsys, ["connect", str(ckpt), "--token-file", str(empty)]) == [
        f"spark-savepoint: [SAVEPOINT_CREDENTIAL_FILE] --token-file {empty} is empty: write the "
        "secret on its first line."
    ]


def test_the_connect_token_comes_from_the_file_the_environment_or_a_new_one(
    tmp_path, monkeypatch
) -> None:
    from spark_savepoint.sql_ext.servers.connect import server_token

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", raising=False)
    given = _secret(tmp_path / "token", "from-file\n")
    with server_token(15002, given) as token:
        assert (token.value, token.file, token.origin) == ("from-file", given, "--token-file")
    assert given.exists(), "a given token file stays"
    written = tmp_path / "home" / ".spark-savepoint" / "connect-15002.token"
    with server_token(15002) as first, server_token(15003) as other:
        assert first.file == written and len(first.value) >= 40
        assert first.origin == "generated for this start, removed at stop"
        assert first.value != other.value
        assert oct(written.stat().st_mode & 0o777) == oct(0o600)
        assert oct(written.parent.stat().st_mode & 0o777) == oct(0o700)
        assert written.read_text() == first.value + "\n"
    assert not written.exists(), "a generated token file is removed at stop"
    monkeypatch.setenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", "from-env")
    with server_token(15002) as token:
        assert (token.value, token.origin) == ("from-env", "given, removed at stop")
    with server_token(15002, conf={"spark.connect.authenticate.token": "from-conf"}) as token:
        assert token.value == "from-conf"


def test_thrift_password_settings() -> None:
    from spark_savepoint.sql_ext.servers.credentials import parse_password
    from spark_savepoint.sql_ext.servers.thrift import asks_credential, auth_conf

    assert auth_conf(Path("/p")) == {
        "hive.server2.authentication": "CUSTOM",
        "hive.server2.custom.authentication.class": bridge.PASSWORD_AUTHENTICATOR_CLASS,
    }
    assert [asks_credential({"hive.server2.authentication": value})
            for value in ("LDAP", "kerberos", "CUSTOM", "PAM", "NONE", "NOSASL")] == [
        True, True, True, True, False, False]  # fmt: skip
    assert asks_credential({}) is False
    assert parse_password("\nbob:a:b\n") == ("bob", "a:b")


def test_a_password_file_and_another_authentication_are_refused(capsys, tmp_path) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt")
    secret = _secret(tmp_path / "pw", "s3cret\n")
    argv = ["thriftserver", str(ckpt), "--password-file", str(secret),
            "--hiveconf", "hive.server2.authentication=LDAP"]  # fmt: skip
    assert _refusal(capsys, argv) == [
        "spark-savepoint: [SAVEPOINT_BAD_ARGUMENTS] --password-file and --hiveconf "
        "hive.server2.authentication=LDAP each set how clients log in: give one."
    ]


def test_every_command_group_registers_through_one_add() -> None:
    """Each module of ``cli`` with an ``add(subparsers)`` is a command group of the parser, and
    the groups add the commands in the order ``--help`` lists them."""
    modules = [importlib.import_module(info.name)
               for info in pkgutil.iter_modules(cli.__path__, cli.__name__ + ".")]  # fmt: skip
    assert {m.__name__ for m in modules if hasattr(m, "add")} == {
        group.__name__ for group in cli.COMMAND_GROUPS}  # fmt: skip
    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(commands.choices) == [
        "sql", "conf", "create", "recover", "offsets", "savepoint", "upgrade", "inspect", "purge",
        "diff", "undo", "doctor", "repair", "relocate", "thriftserver", "connect"]  # fmt: skip


def test_conf_prints_the_jar_of_the_spark_version_asked_for(capsys) -> None:
    assert main(["conf", "hdfs://nn:8020/ckpt", "--spark-version", "4.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"--conf spark.jars={jar.JVM_DIR / 'spark-savepoint-4.1.jar'}" in lines
    assert _refusal(capsys, ["conf", "hdfs://nn:8020/ckpt", "--spark-version", "3.4"]) == [
        "spark-savepoint: [SAVEPOINT_SPARK_VERSION] spark-savepoint runs on Spark 3.5, 4.0, 4.1,"
        " 4.2 and 4.3, not on Spark 3.4: run it with pyspark 3.5.x to 4.3.x (it reads"
        " checkpoints that older Spark versions wrote there too)."
    ]
