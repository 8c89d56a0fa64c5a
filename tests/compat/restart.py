"""Restart checkpoints on the running pyspark version and print what each restart emitted.

    <venv python> -m tests.compat.restart < cases.json

Run by a compatibility venv's interpreter (``tests.compat.venvs``) from the repository root with
``PYTHONPATH`` = repository root and ``PYSPARK_PYTHON`` = that interpreter. Standard input is a
JSON list of cases ``{"kind", "provider", "root"[, "format_version"]}``, each a checkpoint at
``<root>/checkpoint`` (e.g. a copy of a golden one, possibly edited). Every case is restarted in
one local SparkSession with the kind's default restart wave (``StreamingQuery.restart``); for each,
in order, one JSON line goes to stdout: ``{"root", "emitted": [rows]}`` or ``{"root", "error"}``.
A failing case does not stop the others. Everything else (Spark's logs) goes to stderr.

``format_version`` 2 sets ``spark.sql.streaming.stateStore.checkpointFormatVersion=2`` for that
restart: Spark 4.1+ does not record it in the offset log, and with the default 1 it refuses to
read the ``v2`` commit log a format-2 checkpoint has. Without the field the restart uses the
format of the checkpoint's last commit file (its first line, ``v1`` or ``v2``).

A golden copied elsewhere restarts once an edit has committed a batch; unedited it fails on every
version with Spark's ``Wrong basePath`` (see ``MOVED_UNEDITED``). Unedited, it restarts only at
the root it was built at (the folder above ``input/`` in its ``sources/0/*`` paths) with as many
placeholder files in ``input/`` (each side's folder for ``join``) as the build wrote, so that the
restart wave's file gets a name the source has not seen.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

MOVED_UNEDITED = (
    "an unedited checkpoint restarts only at the root it was built at: on restart Spark plans the"
    " last committed batch's input files again, by the absolute paths in sources/, and they must"
    " lie under the new input folder; after an edit (a new batch with the same offsets) it works"
)
"""Appended to the error a restart of a moved, unedited file-source checkpoint fails with."""


def commit_format(checkpoint: Path) -> int:
    """The state checkpoint format of the last commit: 2 if its log line is ``v2``, else 1."""
    commits = [p for p in (checkpoint / "commits").glob("[0-9]*") if p.name.isdigit()]
    if not commits:
        return 1
    last = max(commits, key=lambda p: int(p.name))
    return 2 if last.read_text().split("\n", 1)[0].strip() == "v2" else 1


def restart_case(spark: Any, case: dict[str, Any]) -> dict[str, Any]:
    """Restart one case; its result line as a dict."""
    from tests.compat.jsonable import jsonable
    from tests.compat.local_spark import CHECKPOINT_FORMAT_CONF, session_confs
    from tests.support.streaming_queries import StreamingQuery

    root = Path(case["root"])
    result: dict[str, Any] = {"root": case["root"]}
    try:
        version = int(case.get("format_version") or commit_format(root / "checkpoint"))
        confs = {CHECKPOINT_FORMAT_CONF: "2"} if version == 2 else {}
        with session_confs(spark, confs):
            emitted = StreamingQuery(case["kind"], case["provider"], root).restart(spark)
        result["emitted"] = jsonable(emitted)
    except Exception as error:  # reported as the case's result
        result["error"] = f"{type(error).__name__}: {error}"
        if "Wrong basePath" in result["error"]:
            result["error"] += f" [{MOVED_UNEDITED}]"
    return result


def main(cases: list[dict[str, Any]], out: TextIO) -> None:
    """Restart every case in one session, one result line each on ``out``."""
    from tests.compat.local_spark import local_session

    spark = local_session()
    try:
        for case in cases:
            out.write(json.dumps(restart_case(spark, case)) + "\n")
            out.flush()
    finally:
        spark.stop()


if __name__ == "__main__":
    cases = json.load(sys.stdin)
    # Results get a private copy of stdout; anything else writing to it (the JVM, Python
    # workers) goes to stderr, so stdout carries result lines only.
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    main(cases, results)
