"""``attach`` on a session that was started without spark-savepoint's settings: the jar, the
table functions and the SQL rules are loaded into the running driver (and shipped to separate
executor JVMs on local-cluster); reads and every kind of write work, and the real streaming
query continues from the edited state."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from spark_savepoint.catalog import bridge
from tests.support import start_program


@pytest.mark.slow
@pytest.mark.parametrize(
    "master", ["local[2]", pytest.param("local-cluster[1,1,1024]", marks=pytest.mark.cluster)]
)
def test_attach_to_a_plain_running_session(spark, private_copy, tmp_path: Path, master) -> None:
    query = private_copy("agg", "rocksdb")
    program = start_program(
        "plain_session",
        str(query.checkpoint),
        master,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    out, err = program.communicate(timeout=300)
    assert program.returncode == 0, err[-3000:]
    report = json.loads(out.strip().splitlines()[-1])
    assert report["executors"] == (1 if master.startswith("local-cluster") else 0)
    assert report["columns"] == ["user", "cnt", "total"]  # partition_id: a metadata column
    assert report["before"] == [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert report["lookup"] == [["alice", 2, 17]]
    assert report["listeners"] == sorted([bridge.QUERY_LISTENER_CLASS,
                                          bridge.VALUE_NAMES_LISTENER_CLASS])  # fmt: skip
    assert report["batches"] == [2, 3, 4, 5, 6, 7]
    assert report["after"] == [
        ["alice", 100, 1000], ["carol", 1, 98], ["wes", 3, 30], ["yan", 1, 7], ["zed", 5, 50]
    ]  # fmt: skip
    assert report["metadata"] == [["agg_0", "default"]]
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 102, "total": 1008},
        {"user": "dave", "cnt": 1, "total": 8},
    ]
