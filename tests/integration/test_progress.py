"""Progress of long operations on real Spark jobs: plain lines off a terminal (a savepoint
take), one redrawn bar on a terminal, nothing for quick work."""

from __future__ import annotations

import io
import re

from pyspark.sql import functions as F

from spark_savepoint import take_savepoint
from spark_savepoint.sql_ext.cli.progress import job_progress


def test_take_shows_its_progress_as_plain_lines_off_a_terminal(
    spark, checkpoints, tmp_path
) -> None:
    out = io.StringIO()
    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    with job_progress(spark, "take", out=out, every=0.1, quiet_for=0):
        take_savepoint(spark, ckpt, str(tmp_path / "sp"))
    lines = out.getvalue().splitlines()
    assert lines and "\r" not in out.getvalue()
    line = re.compile(r"take: job (\d+): (\d+)/(\d+) tasks, (\d+)/(\d+) stages \(\d+\.\d s\)")
    progress = [line.fullmatch(text) for text in lines]
    assert all(progress), lines
    last = {int(m[1]): m for m in progress}
    assert all(m[2] == m[3] and m[4] == m[5] for m in last.values()), lines  # all done at the end
    assert sorted(last) == list(range(1, len(last) + 1))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_redrawn_bar_and_quick_work_stays_quiet(spark) -> None:
    out = _Terminal()
    with job_progress(spark, "count", out=out, every=0.05, quiet_for=0):
        spark.range(0, 1000, numPartitions=3).groupBy(
            (F.col("id") % 7).alias("k")
        ).count().collect()
    text = out.getvalue()
    assert text.startswith("\r") and text.endswith("\n") and text.count("\n") == 1
    final = text.rsplit("\r", 1)[1]
    assert re.fullmatch(
        r"count \[#{20}\] job \d+, stages (\d+)/\1, tasks (\d+)/\2, \d+\.\d s\s*\n", final
    ), final
    quiet = _Terminal()
    with job_progress(spark, "count", out=quiet, every=0.05, quiet_for=60):
        spark.range(10).count()
    assert quiet.getvalue() == ""
