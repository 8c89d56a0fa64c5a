"""Edits and restores of checkpoints written by every supported Spark version, resumed by that
same version.

For each version, a copy of every editable golden checkpoint gets its kind's edit (``EDITS``: a
DELETE and an INSERT, two committed batches) through the catalog of this project's Spark; the
aggregation goldens are also taken as a savepoint and restored onto 8 partitions (and the other
provider where the checkpoint format allows one) before the same edit. Then one process of the
writing version (its own virtualenv, ``tests.compat.venvs``) restarts all of them with the
kind's restart wave (``tests.compat.restart``). The decisive check: each restarted query emits
exactly what it would after those edits, on the version that wrote the checkpoint.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from spark_savepoint import attach, restore_savepoint, take_savepoint
from tests.compat.edits import EDITS, OVERWRITE_EDIT, WATERMARK_EDIT, Edit
from tests.compat.golden import Golden, goldens
from tests.compat.matrix import cell
from tests.compat.venvs import python_for
from tests.support import REPO_ROOT
from tests.support.background import BackgroundRuns
from tests.support.streaming_queries import StreamingQuery

pytestmark = pytest.mark.slow

EDITABLE = [g for g in goldens() if g.kind in EDITS]
RESTORED = [g for g in goldens() if g.kind == "agg"]
"""Goldens also restored from a savepoint (8 partitions, other provider where allowed)."""
WATERMARKED = [g for g in goldens() if g.kind == "window_agg"]
"""Goldens whose watermark is also set forward (``WATERMARK_EDIT``)."""
OVERWRITTEN = [g for g in goldens() if g.kind == "agg"]
"""Goldens also edited by one INSERT OVERWRITE (``OVERWRITE_EDIT``: full images)."""
RESTORED_PARTITIONS = 8
OTHER_PROVIDER = {"hdfs": "rocksdb", "rocksdb": "hdfs"}
CATALOG = "edited"
RESTART_TIMEOUT_S = 900


@dataclass
class VersionRun:
    """The edits of one version's goldens and what its restarts emitted."""

    edit_errors: dict[str, str] = field(default_factory=dict)
    """Golden id -> the error of its edit (absent when it committed)."""
    restarts: dict[str, dict] = field(default_factory=dict)
    """Golden id -> the restart result line (``emitted`` or ``error``)."""
    checkpoints: dict[str, Path] = field(default_factory=dict)
    """Golden id -> its edited copy."""


def _restored(spark, golden: Golden, root: Path) -> StreamingQuery:
    """A savepoint of a copy of ``golden``, restored under ``root/restored`` onto 8 partitions
    and, for checkpoint format v1, the other provider."""
    query = golden.copy(root / "original")
    savepoint = root / "savepoint"
    take_savepoint(spark, str(query.checkpoint), str(savepoint))
    provider = OTHER_PROVIDER[golden.provider] if golden.format_version == 1 else golden.provider
    restored = StreamingQuery(golden.kind, provider, root / "restored")
    restore_savepoint(
        spark, str(savepoint), str(restored.checkpoint), RESTORED_PARTITIONS, provider
    )
    return restored


def _edit_all(spark, version: str, root: Path) -> tuple[VersionRun, list[dict]]:
    """Copy (or restore) and edit every editable golden of ``version``; the run so far and the
    restart cases (restored ones have the id ``<golden id>-restored``). The copies' files are as
    new as the clone of the repository: writes are forced."""
    run, cases = VersionRun(), []
    prepared: list[tuple[Golden, str, Callable[[], StreamingQuery], Edit]] = [
        (g, g.id, lambda g=g: g.copy(root / g.case), EDITS[g.kind]) for g in EDITABLE
    ]
    prepared += [
        (g, f"{g.id}-restored", lambda g=g: _restored(spark, g, root / f"{g.case}-restored"),
         EDITS[g.kind])
        for g in RESTORED
    ]  # fmt: skip
    prepared += [
        (g, f"{g.id}-watermark", lambda g=g: g.copy(root / f"{g.case}-watermark"), WATERMARK_EDIT)
        for g in WATERMARKED
    ]
    prepared += [
        (g, f"{g.id}-overwrite", lambda g=g: g.copy(root / f"{g.case}-overwrite"), OVERWRITE_EDIT)
        for g in OVERWRITTEN
    ]
    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        for golden, case_id, prepare, edit in (p for p in prepared if p[0].version == version):
            try:
                query = prepare()
                run.checkpoints[case_id] = query.checkpoint
                attach(spark, str(query.checkpoint), CATALOG)
                for statement in edit.sql(f"{CATALOG}.{golden.uid}"):
                    spark.sql(statement)
            except Exception as error:  # noqa: BLE001 - recorded; its test fails with it
                run.edit_errors[case_id] = str(error).splitlines()[0]
                continue
            cases.append({"kind": golden.kind, "provider": query.provider,
                          "root": str(query.root), "format_version": golden.format_version,
                          "id": case_id})  # fmt: skip
    finally:
        spark.conf.unset("spark.savepoint.write.force")
    return run, cases


RESTARTS = BackgroundRuns()
"""The versions' restart processes, each started as soon as its edits are done: it runs while
the next version's goldens are edited in this session (:mod:`tests.support.background`), at
the suite's own priority, since the module's tests wait for it next."""


def _start_restarts(version: str, cases: list[dict]) -> None:
    """Restart the cases in one process of pyspark ``version``, in the background."""
    python = python_for(version)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYSPARK_PYTHON": str(python), "TZ": "UTC"}
    RESTARTS.start(version, [str(python), "-m", "tests.compat.restart"], cwd=REPO_ROOT, env=env,
                   timeout=RESTART_TIMEOUT_S, stdin=json.dumps(cases))  # fmt: skip


def _restarted(version: str, cases: list[dict]) -> dict[str, dict]:
    """Golden id -> the result line of its restart by ``version``."""
    if not cases:
        return {}
    done = RESTARTS.result(version)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    by_root = {line["root"]: line for line in lines}
    tail = done.stderr.strip().splitlines()[-5:]
    return {
        case["id"]: by_root.get(case["root"], {"error": f"no result (exit {done.returncode})"
                                                         f": {tail}"})
        for case in cases
    }  # fmt: skip


@pytest.fixture(scope="module")
def version_runs() -> dict[str, VersionRun]:
    """Version -> its run, made the first time a test asks for any."""
    return {}


def _run_for(spark, version_runs, tmp_path_factory, version: str) -> VersionRun:
    """``version``'s run; the first call edits every version's goldens, starting each version's
    restarts as soon as its edits are done."""
    if not version_runs:
        edited = {}
        for v in sorted({g.version for g in EDITABLE}):
            edited[v] = _edit_all(spark, v, tmp_path_factory.mktemp(f"edited-{v}"))
            if edited[v][1]:
                _start_restarts(v, edited[v][1])
        for v, (run, cases) in edited.items():
            run.restarts = _restarted(v, cases)
            version_runs[v] = run
    return version_runs[version]


@pytest.mark.parametrize("golden", EDITABLE, ids=[g.id for g in EDITABLE])
def test_edit_is_resumed_by_the_version_that_wrote_the_checkpoint(
    spark, version_runs, tmp_path_factory, golden: Golden
) -> None:
    run = _run_for(spark, version_runs, tmp_path_factory, golden.version)
    with cell(golden, "edit"):
        assert golden.id not in run.edit_errors, run.edit_errors.get(golden.id)
        if golden.minor == "3.5":  # no operator metadata where Spark wrote none
            assert not list(run.checkpoints[golden.id].glob("state/*/_metadata/metadata"))
    with cell(golden, "restart"):
        result = run.restarts[golden.id]
        assert "error" not in result, result.get("error")
        assert result["emitted"] == EDITS[golden.kind].restart


@pytest.mark.parametrize("golden", RESTORED, ids=[g.id for g in RESTORED])
def test_restore_is_resumed_by_the_version_that_wrote_the_checkpoint(
    spark, version_runs, tmp_path_factory, golden: Golden
) -> None:
    """Restored state is written by this project's Spark; the writing version must load it."""
    run = _run_for(spark, version_runs, tmp_path_factory, golden.version)
    _assert_resumed(run, f"{golden.id}-restored", EDITS[golden.kind])
    partitions = run.checkpoints[f"{golden.id}-restored"] / "state" / "0"
    assert len([p for p in partitions.iterdir() if p.name.isdigit()]) == RESTORED_PARTITIONS


@pytest.mark.parametrize("golden", WATERMARKED, ids=[g.id for g in WATERMARKED])
def test_watermark_edit_is_resumed_by_the_version_that_wrote_the_checkpoint(
    spark, version_runs, tmp_path_factory, golden: Golden
) -> None:
    """The offsets and commit entries of a watermark edit are loaded by the writing version,
    which then drops late input and evicts state by the new watermark."""
    run = _run_for(spark, version_runs, tmp_path_factory, golden.version)
    _assert_resumed(run, f"{golden.id}-watermark", WATERMARK_EDIT)


@pytest.mark.parametrize("golden", OVERWRITTEN, ids=[g.id for g in OVERWRITTEN])
def test_overwrite_is_resumed_by_the_version_that_wrote_the_checkpoint(
    spark, version_runs, tmp_path_factory, golden: Golden
) -> None:
    """The images an INSERT OVERWRITE writes with this project's Spark (a RocksDB ``.zip``
    and its SST files, an HDFS-backed ``.snapshot``) are loaded by the writing version."""
    run = _run_for(spark, version_runs, tmp_path_factory, golden.version)
    _assert_resumed(run, f"{golden.id}-overwrite", OVERWRITE_EDIT)


def _assert_resumed(run: VersionRun, case_id: str, edit: Edit) -> None:
    """Case ``case_id`` was edited, and its restart emitted what ``edit`` leads to."""
    assert case_id not in run.edit_errors, run.edit_errors.get(case_id)
    result = run.restarts[case_id]
    assert "error" not in result, result.get("error")
    assert result["emitted"] == edit.restart
