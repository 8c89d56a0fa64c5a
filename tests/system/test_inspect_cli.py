"""``spark-savepoint inspect`` end to end: the installed command in its own process, its JSON
against the files and tables, its page, its quiet stderr, and nothing left behind."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter

import pytest

from spark_savepoint import attach

PROGRESS = re.compile(r"inspect: job \d+: \d+/\d+ tasks, \d+/\d+ stages \(\d+\.\d s\)")


@pytest.mark.slow
def test_inspect_prints_json_and_writes_a_self_contained_page(spark, checkpoints, tmp_path):
    ckpt = checkpoints[("join", "hdfs")].checkpoint
    temp = tmp_path / "tmp"
    temp.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "spark_savepoint", "inspect", str(ckpt), "--json",
         "--html", "page.html"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temp)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    commits = sorted(int(p.name) for p in (ckpt / "commits").iterdir() if p.name.isdigit())
    assert values["committed_batches"] == commits and values["batch_id"] == commits[-1]
    (op,) = values["operators"]
    attach(spark, str(ckpt), "insp_cli")
    counted = 0
    for table in op["tables"]:
        if table["state_kind"] == "join_store":
            assert table["rows_per_partition"] is None
            continue
        rows = Counter(r.partition_id for r in spark.table(f"insp_cli.join_0.{table['state']}")
                       .select("partition_id").collect())  # fmt: skip
        assert table["rows_per_partition"] == [rows.get(p, 0) for p in range(4)]
        counted += 1
    assert counted == 2  # left and right
    state = ckpt / "state" / "0"
    disk = sum(p.stat().st_size for p in state.rglob("*") if p.is_file()
               and not (p.name.startswith(".") and p.name.endswith(".crc")))  # fmt: skip
    assert op["bytes_on_disk"] == disk
    page = (tmp_path / "page.html").read_text()
    assert not re.search(r"https?://|<script|<link|@import|url\(", page)
    assert page.count('<svg class="partitions"') == 2 and page.count('<rect class="bar') == 8
    noise = [line for line in result.stderr.splitlines()
             if not PROGRESS.fullmatch(line) and "incubator modules" not in line]  # fmt: skip
    assert noise == []  # quiet: Spark's logs at ERROR, progress as plain lines off a terminal
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html", "tmp"]
    assert list(temp.iterdir()) == []
