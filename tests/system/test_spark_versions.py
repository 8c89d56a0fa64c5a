"""The tool running on each Spark it supports besides the one of this suite: in a virtualenv
with that pyspark and the project installed beside it (:mod:`tests.support.runtime_venvs`), it
reads (also with time travel), checks an upgrade, edits with every statement, takes a savepoint,
restores it onto another partition count and restarts the real query on the result, all with
that Spark (tests/support/version_run.py).
The full suite runs on the installed pyspark (4.3); this is the subset run on the others."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from spark_savepoint.catalog.jar import jar_name
from tests.compat.edits import EDITS
from tests.compat.golden import Golden, as_compared, goldens, reference_state
from tests.support import REPO_ROOT
from tests.support.background import RUNS
from tests.support.connect_venv import CLIENT_VERSIONS, client_python, run_client
from tests.support.runtime_venvs import other_versions, pyspark_version, runtime_python
from tests.support.server_process import ServerProcess

OTHERS = other_versions()
OTHER_KINDS = ("3.5.9/join-hdfs", "3.5.9/dedup-rocksdb", "3.5.9/pandas_state-hdfs",
               "3.5.9/window_agg-rocksdb")  # fmt: skip
"""Golden checkpoints every version reads besides its own query's: the other operator kinds."""
NEWER = "4.0.5/agg-hdfs"
"""A checkpoint written by Spark 4.0 (operator metadata), which Spark 3.5 cannot run on."""


def goldens_read_on(minor: str) -> list[str]:
    """The golden checkpoints ``minor`` reads: the other kinds, its own transformWithState
    state (4.0 on), and on 3.5 a 4.0 checkpoint (refused)."""
    own = [f"{g.version}/{g.case}" for g in goldens() if g.minor == minor and g.kind == "tws"]
    return [*OTHER_KINDS, *own, *([NEWER] if minor == "3.5" else [])]


EDITED_ON = {
    "3.5": ("3.5.9/join-hdfs",),
    "4.0": ("3.5.9/dedup-rocksdb", "4.0.5/tws-rocksdb"),
    "4.1": ("3.5.9/pandas_state-hdfs", "4.1.4/tws-rocksdb"),
    "4.2": ("3.5.9/window_agg-rocksdb", "4.2.1/tws-rocksdb_v2"),
}
"""Golden checkpoints each version edits with its kind's edit and restarts: every other kind on
one version, and on each of 4.0 to 4.2 its own transformWithState state (4.2's in format v2)."""


ROOTS: dict[str, Path] = {}
"""Spark minor -> the folder its run works in."""


def start_background(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Starts every version's run (tests/support/version_run.py) in the background: each is
    self-contained, and its tests find it done (:mod:`tests.support.background`)."""
    for minor in OTHERS:
        _start(minor, tmp_path_factory)


def _start(minor: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    if minor in ROOTS:  # started already
        return
    root = ROOTS[minor] = tmp_path_factory.mktemp(f"spark-{minor}")
    python = runtime_python(minor)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYSPARK_PYTHON": str(python), "TZ": "UTC"}
    env.pop("SPARK_HOME", None)
    args = json.dumps({"root": str(root), "providers": ["hdfs", "rocksdb"],
                       "goldens": goldens_read_on(minor),
                       "edits": EDITED_ON.get(minor, ())})  # fmt: skip
    RUNS.start(f"spark-{minor}", [str(python), "-m", "tests.support.version_run", args],
               cwd=root, env=env)  # fmt: skip


def _result(minor: str) -> dict:
    result = RUNS.result(f"spark-{minor}")
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.splitlines()[-1])


CLUSTER_ON = ("3.5",)
"""The other Sparks whose own spark-submit runs a job on local-cluster (the suite's time)."""
QUICK_START_ON = ("3.5",)
"""The other Sparks the README's quick start runs on (the suite's time)."""


@pytest.fixture(scope="module", params=OTHERS)
def version_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The Spark minor, what tests/support/version_run.py saw on it, and its folder."""
    minor = request.param
    _start(minor, tmp_path_factory)  # when the session did not (tests/conftest.py)
    return minor, _result(minor), ROOTS[minor]


CHANGES = [
    [0, "insert", "alice", 2, 17], [0, "insert", "bob", 1, 5],
    [1, "update", "bob", 2, 10], [1, "insert", "carol", 1, 3],
    [2, "update", "alice", 100, 1000], [3, "delete", "bob", None, None],
    [4, "update", "carol", 1, 4], [5, "insert", "dave", 10, 100],
]  # fmt: skip
"""The change feed of the edited aggregation: its two query batches, then the four edits."""


@pytest.mark.slow
def test_the_tool_runs_on_spark(version_run) -> None:
    minor, out, _ = version_run
    assert (out["pyspark"], out["spark"]) == (pyspark_version(minor),) * 2
    assert out["jar"] == jar_name(minor)  # the jar built against that Spark's own jars
    for provider in ("hdfs", "rocksdb"):
        seen = out[provider]
        assert seen["before"] == [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
        assert seen["upgrade"] == ["compatible", ["keep"]]  # the query planned by that Spark
        assert seen["edits"] == [2, 3, 4, 5]  # INSERT, DELETE, UPDATE, MERGE: a batch each
        # CALL is SQL of Spark 4.0+; on 3.5 the Python verbs call the procedures instead
        assert seen["call"] == (1 if minor != "3.5" else "SAVEPOINT_SPARK_VERSION")
        assert seen["version_1"] == seen["before"]  # VERSION AS OF an older batch
        assert seen["lookup"] == [["carol", 1, 4]]  # a key lookup
        assert seen["batches"] == [[0], [1], [2], [3], [4], [5]]  # operator state: the batches
        feeds = seen["changes"]  # from the change files on 4.0+ (Spark's readChangeFeed)
        assert feeds["from_change_files"] == (minor != "3.5")
        assert feeds["rows"] == feeds["diffed"] == CHANGES, feeds
        doctor = seen["doctor"]  # verify, then repair a checkpoint missing a state file
        assert (doctor["healthy"], doctor["damaged"], doctor["repaired"]) == (
            [], ["STATE_FILE_MISSING"], [])  # fmt: skip
        assert "roll back from batch 5 to batch 4" in doctor["repair"], doctor["repair"]
        after = [["alice", 100, 1000], ["carol", 1, 4], ["dave", 10, 100]]
        assert seen["after"] == after and seen["restored"] == after and seen["taken"] == 5
        assert {p for (p,) in seen["partitions"]} == {4, 5, 7}  # rehashed onto 8 partitions
        assert seen["folded"] == [["erin", 1, 2]] * 2  # staged, then committed
        # the decisive check: the query, restarted on the restored savepoint by that Spark
        assert seen["restart"] == [["alice", 102, 1008], ["bob", 1, 5], ["dave", 11, 108]]
        # upgraded to a query with a dropDuplicates in front, which starts empty: the same
        # events count once more; the query continues from the old counts
        assert seen["upgrade_apply"].startswith("Upgraded ") and "1 new" in seen["upgrade_apply"]
        assert seen["upgraded_run"] == [["alice", 4, 25], ["bob", 3, 15], ["dave", 1, 8]]


@pytest.mark.slow
def test_other_kinds_and_versions_read_as_spark_read_them(version_run) -> None:
    """Each golden checkpoint reads on that Spark as the Spark that wrote it read it (4.0's
    reading for 3.5's, which has no reader: tests/compat/test_read.py); a checkpoint of a newer
    Spark than 3.5 is refused on 3.5 in one line, and so is a bootstrap table function."""
    minor, out, _ = version_run
    for name in goldens_read_on(minor):
        seen = out["goldens"][name]
        if name == NEWER and minor == "3.5":
            assert seen == "SAVEPOINT_SPARK_VERSION"
            continue
        reference = reference_state(Golden(*name.split("/")))
        assert sorted(seen) == sorted(reference), name
        for state, expected in reference.items():
            assert seen[state] == json.loads(json.dumps(as_compared(expected["rows"]))), name
    assert out["bootstrap"] == (
        "SAVEPOINT_SPARK_VERSION" if minor == "3.5" else "UserDefinedTableFunction"
    )


@pytest.mark.slow
def test_other_kinds_are_edited_and_restarted_on_spark(version_run) -> None:
    """A golden checkpoint edited by that Spark (a DELETE and an INSERT) and its query restarted
    by that Spark: it emits what it would after those edits on any version
    (tests/compat/edits.py)."""
    minor, out, _ = version_run
    assert sorted(out["edited"]) == sorted(EDITED_ON[minor])
    for name, result in out["edited"].items():
        assert "error" not in result, (name, result.get("error"))
        assert result["emitted"] == EDITS[Golden(*name.split("/")).kind].restart, name


@pytest.mark.slow
def test_the_thrift_server_runs_on_spark(version_run) -> None:
    """``spark-savepoint thriftserver`` on that Spark serves the restored checkpoint to PyHive
    (this suite's client), behind its password, and refuses writes in one line."""
    from pyhive import hive

    minor, _, root = version_run
    password_file = root / "password"
    password_file.write_text("analyst:s3cret\n")
    password_file.chmod(0o600)
    args = ["thriftserver", str(root / "hdfs" / "restored"), "--password-file",
            str(password_file), "--master", "local[1]"]  # fmt: skip
    server = ServerProcess(args, root / "thrift.log", python=runtime_python(minor))
    try:
        connection = hive.connect(host="127.0.0.1", port=server.port, username="analyst",
                                  password="s3cret", auth="CUSTOM")  # fmt: skip
        cursor = connection.cursor()
        cursor.execute("SELECT user, cnt, total FROM savepoint_agg_0.default ORDER BY user")
        assert [list(row) for row in cursor.fetchall()] == [
            ["alice", 102, 1008], ["bob", 1, 5], ["carol", 1, 4], ["dave", 11, 108]]  # fmt: skip
        with pytest.raises(Exception, match=r"SAVEPOINT_READ_ONLY"):
            cursor.execute("DELETE FROM savepoint.agg_0.default WHERE user = 'bob'")
        connection.close()
    finally:
        assert server.stop() == 0, server.log.read_text()[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("minor", OTHERS)
def test_pip_install_keeps_the_pyspark_in_place(minor: str) -> None:
    python = runtime_python(minor)
    report = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--report", "-",
         "--disable-pip-version-check", str(REPO_ROOT)],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    installs = {item["metadata"]["name"]: item["metadata"]["version"]
                for item in json.loads(report.stdout)["install"]}  # fmt: skip
    assert "pyspark" not in installs, installs
    assert set(installs) == {"spark-savepoint"}, installs


@pytest.mark.slow
@pytest.mark.cluster
def test_spark_submit_of_that_spark_reads_and_edits_on_an_executor_jvm(version_run) -> None:
    """That pyspark's own ``spark-submit``, given what ``spark-savepoint conf --spark-version``
    prints, runs a plain job (tests/support/submit_job.py) on ``local-cluster``: the executor
    JVM reads and writes state through that version's jar. On 3.5 (its Scala 2.12 jar) here,
    on 4.3 in tests/system/test_spark_submit.py: the 4.x jars share their classpath shape."""
    minor, _, root = version_run
    if minor not in CLUSTER_ON:
        pytest.skip(f"spark-submit runs on {CLUSTER_ON} and 4.3 (time): the 4.x jars load alike")
    copy = root / "submit"
    shutil.copytree(root / "hdfs" / "restored", copy)
    python = runtime_python(minor)
    conf = subprocess.run(
        [str(python), "-m", "spark_savepoint", "conf", str(copy), "--spark-version", minor],
        capture_output=True, text=True, check=True, cwd=root,
    ).stdout  # fmt: skip
    assert jar_name(minor) in conf
    spark_home = Path(subprocess.run(
        [str(python), "-c", "import pyspark, os; print(os.path.dirname(pyspark.__file__))"],
        capture_output=True, text=True, check=True).stdout.strip())  # fmt: skip
    command = [
        str(spark_home / "bin" / "spark-submit"), "--master", "local-cluster[1,1,1024]",
        *shlex.split(conf), "--conf", "spark.savepoint.write.force=true",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.ui.showConsoleProgress=false",
        str(REPO_ROOT / "tests" / "support" / "submit_job.py"),
    ]  # fmt: skip
    env = {**os.environ, "SPARK_HOME": str(spark_home), "PYSPARK_PYTHON": str(python)}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env,
                            cwd=root)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["executors"] == 1
    assert report["before"] == [["alice", 102, 1008], ["bob", 1, 5], ["carol", 1, 4],
                                ["dave", 11, 108]]  # fmt: skip
    assert report["after"] == [["alice", 10, 100], ["bob", 1, 6], ["carol", 1, 4],
                               ["dave", 11, 108]]  # fmt: skip


@pytest.mark.slow
def test_the_quick_start_runs_on_spark(version_run) -> None:
    """The README's first command, ``examples/quickstart.py``, in that Spark's virtualenv (the
    oldest Spark it runs on; 4.3's: tests/system/test_examples.py)."""
    minor, _, root = version_run
    if minor not in QUICK_START_ON:
        pytest.skip(f"the quick start runs on {QUICK_START_ON} and 4.3 (time)")
    quickstart = REPO_ROOT / "examples" / "quickstart.py"
    result = subprocess.run([str(runtime_python(minor)), str(quickstart)], capture_output=True,
                            text=True, timeout=600, cwd=root)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "|savepoint|1   |" in result.stdout and "|spark    |3   |" in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("checkpoint: ")


@pytest.mark.slow
def test_spark_connect_on_spark(version_run) -> None:
    """``spark-savepoint connect`` on that Spark, with the ``pyspark-client`` of its line: the
    client's whole Python API (tests/support/connect_client.py, as tests/system/test_connect.py
    runs it on 4.3). Spark 3.5's Connect server has no authentication: refused in one line."""
    minor, _, root = version_run
    folder = root / "connect"
    agg = shutil.copytree(root / "hdfs" / "pristine", folder / "agg")
    if minor == "3.5":
        result = subprocess.run(
            [str(runtime_python(minor)), "-m", "spark_savepoint", "connect", str(agg)],
            capture_output=True, text=True, timeout=300, cwd=root,
        )  # fmt: skip
        assert result.returncode == 1 and not result.stdout
        assert result.stderr.strip().splitlines() == [
            "spark-savepoint: [SAVEPOINT_SPARK_VERSION] spark-savepoint connect needs Spark 4.0 "
            f"or later; this is pyspark {pyspark_version(minor)}, whose Connect server lets in "
            "anyone who reaches its port (Spark's token authentication came with 4.0): on 3.5 "
            "use spark-savepoint thriftserver (with a password), or the Python API in your own "
            "job."
        ]
        return
    dedup = shutil.copytree(root / "goldens" / "3.5.9" / "dedup-rocksdb" / "checkpoint",
                            folder / "dedup")  # fmt: skip
    python = client_python(minor)
    server = ServerProcess(["connect", str(agg), "--allow-writes", "--master", "local[1]",
                            "--conf", "spark.sql.shuffle.partitions=4"], folder / "server.log",
                           env={"HOME": str(folder / "home")},
                           python=runtime_python(minor))  # fmt: skip
    try:
        url = server.line("Spark Connect URL: ")
        args = {"url": url, "agg": str(agg), "dedup": str(dedup),
                "savepoints": str(folder / "savepoints"), "missing": str(folder / "nowhere"),
                "empty": str(folder / "empty")}  # fmt: skip
        out = run_client(python, "connect_client.py", args, folder)
    finally:
        assert server.stop() == 0, server.log.read_text()[-3000:]
    assert out["pyspark"] == CLIENT_VERSIONS[minor] and out["jvm_modules"] == []
    assert out["before"] == [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert out["after"] == [["alice", 100, 1000], ["carol", 1, 3], ["dave", 10, 100]]
    assert out["version_1"] == out["before"] and out["batches"] == [0, 1, 2, 3, 4]
    assert out["diff"] == [["delete", "bob"], ["insert", "dave"], ["update", "alice"]]
    assert out["dedup"] == [1, 2, 3, 4]
    assert out["taken"] == [4, 3] and out["listed"] == [[4, 3]]
    assert out["bootstrap"] == [["a", 2, 3], ["b", 1, 5]]
    assert out["errors"]["typed"]["type"] == "NoSuchState"
    assert out["last_edit"] == [4, 1] and out["transaction_plan"] == [["agg_0.default", 1]]
    assert out["dry_run"] == [5, 1, ["[carol]: [1,3] -> (removed)"]]
