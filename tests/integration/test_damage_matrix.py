"""The damage matrix of the checkpoint doctor: each kind of damage x every operator kind x both
providers x checkpoint formats 1 and 2 (HDFS-backed deltas; RocksDB changelogs, a snapshot zip
per version, format 2).

Every cell starts from a copy of a real checkpoint of three batches (state versions 1..3) and
shows, in order:

1. ``verify`` names exactly that damage (class, severity, file, partition) and nothing else, and
   changes nothing;
2. ``repair`` leaves only what it says is for hands; ``repair --undo`` puts the damaged
   checkpoint back byte for byte; repaired again, it is what the query restarts on;
3. the decisive test: the real query restarted on the repaired checkpoint emits exactly what it
   emits on a *twin*, the undamaged checkpoint given the repaired one's query logs (a rollback
   done by hand, as Spark allows), fed the same new input, and is healthy afterwards.

A healthy checkpoint of every base gets no finding and a repair that changes nothing. Damage to
the query logs is the same for every operator kind: it is tried on the aggregation of both
providers and checkpoint formats. The restarts of one base run together (``run_together``): the
cells cost their checks.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from spark_savepoint import SavepointError, relocate, repair, undo_repair, verify
from tests.support.checkpoint_files import snapshot
from tests.support.damage import (
    LAYOUTS,
    Bases,
    change_files,
    damage_of,
    hand_edit,
    lose,
    ssts_named_by,
    truncate,
)
from tests.support.streaming_queries import (
    CASES,
    KINDS,
    SUPPORTED,
    StreamingQuery,
    query_for,
    run_together,
)

Found = tuple[str, str, str | None, int | None]
"""(class, severity, file, partition) of one finding."""

LAST = 3
"""The state version the bases' last batch (2) wrote."""


@dataclass(frozen=True)
class Cell:
    """One damage done to a copy of a base, and what must follow."""

    name: str
    damage: Callable[[Path], object]
    expected: tuple[Found, ...]
    after: tuple[Found, ...] = ()
    """What the doctor finds after the repair: what it leaves for hands, or that is normal."""
    with_query: bool = False
    """Repaired with the query (``repair(..., query=...)``): it writes lost schema files."""
    relocated: bool = False
    """The copy made by ``relocate`` (its operator metadata names its own schema files), not
    by copying the folder (whose metadata still names the base's)."""
    refused: str | None = None
    """The error class the repair refuses it with (changing nothing): no state can be built."""


def _slug(name: str) -> str:
    return re.sub(r"\W+", "-", name).strip("-")


FIXTURE_KINDS = tuple(dict.fromkeys(kind for kind, _ in CASES))
BASES = [
    (kind, layout)
    for kind in FIXTURE_KINDS
    for layout, (provider, _) in LAYOUTS.items()
    if provider in SUPPORTED[kind]
]
"""Every (operator kind, layout) the matrix damages."""

FOURTH_WAVE: dict[str, list[dict]] = {
    "events": [
        {"event_id": 7, "user": "alice", "item": "plum", "amount": 2, "ts": "2024-01-01 10:09:00"},
        {"event_id": 8, "user": "erin", "item": "fig", "amount": 4, "ts": "2024-01-01 10:10:00"},
        {"event_id": 5, "user": "alice", "item": "apple", "amount": 1, "ts": "2024-01-01 10:07:00"},
    ],
    "join": [
        {"side": "right", "key": "d", "ts": "2024-01-01 10:08:00", "value": 41},
        {"side": "left", "key": "e", "ts": "2024-01-01 10:08:00", "value": 5},
        {"side": "right", "key": "e", "ts": "2024-01-01 10:09:00", "value": 50},
    ],
}  # fmt: skip
"""The input the restarts read: new keys and old ones, a duplicate, a join match with state."""


@pytest.fixture(scope="module")
def bases(spark, tmp_path_factory: pytest.TempPathFactory) -> Bases:
    return Bases(spark, tmp_path_factory.mktemp("matrix"))


def store(checkpoint: Path, kind: str, partition: int) -> Path:
    """A store folder of the operator's ``partition`` (a join's: one of its four)."""
    folder = checkpoint / "state" / "0" / str(partition)
    return folder / "left-keyWithIndexToValue" if kind == "join" else folder


def _rel(path: Path, checkpoint: Path) -> str:
    return str(path.relative_to(checkpoint))


def state_cells(checkpoint: Path, kind: str, layout: str) -> list[Cell]:
    """The damages to state of one base, with exactly what the doctor must find."""
    one = store(checkpoint, kind, 1)
    (change,) = change_files(one, LAST)
    changed = _rel(change, checkpoint)
    past = changed.replace(f"/{LAST}", "/5", 1) if "_" not in change.name else re.sub(
        rf"/{LAST}_", "/5_", changed)  # fmt: skip
    every_last = [
        (_rel(f, checkpoint), int(f.relative_to(checkpoint / "state/0").parts[0]))
        for f in (checkpoint / "state/0").rglob("*")
        if f.parent.name != "SSTs" and f in change_files(f.parent, LAST)
    ]
    cells = [
        Cell("change file missing", lambda c: lose(c / changed),
             (("STATE_FILE_MISSING", "error", changed, 1),)),
        Cell("change file cut short", lambda c: truncate(c / changed),
             (("STATE_FILE_CORRUPT", "error", changed, 1),)),
        Cell("state files past every batch", lambda c: shutil.copy(c / changed, c / past),
             (("STATE_FILES_PAST_COMMIT", "warning", past, 1),)),
        Cell("killed after writing state", lambda c: lose(c / "commits/2"),
             (("UNCOMMITTED_BATCH", "info", "offsets/2", None),
              *(("STATE_FILES_PAST_COMMIT", "info", f, p) for f, p in every_last)),
             (("UNCOMMITTED_BATCH", "info", "offsets/2", None),)),
        Cell("partition folder missing", lambda c: shutil.rmtree(c / "state/0/2"),
             (("STATE_PARTITION_MISSING", "error", "state/0/2", 2),),
             refused="SAVEPOINT_CORRUPT_FILE"),
    ]  # fmt: skip
    schema = _rel(schema_file(checkpoint), checkpoint)
    missing = ("SCHEMA_FILE_MISSING", "error", schema, None) if "_stateSchema" in schema else (
        "SCHEMA_FILE_MISSING", "warning", schema, 0)  # fmt: skip
    cells.append(Cell("schema file missing", lambda c: lose(c / schema), (missing,), (missing,),
                      relocated=True))  # fmt: skip
    cells.append(Cell("schema file missing, repaired with the query", lambda c: lose(c / schema),
                      (missing,), with_query=True, relocated=True))  # fmt: skip
    if "_stateSchema" in schema:  # transformWithState: its restart needs operator metadata v2
        gone = ("OPERATOR_METADATA_MISSING", "error", "state/0/_metadata/v2", None)
        cells.append(
            Cell(
                "operator metadata missing",
                lambda c: shutil.rmtree(c / "state/0/_metadata/v2"),
                (gone,),
                (gone,),
            )
        )
        cells.append(Cell("operator metadata missing, repaired with the query",
                          lambda c: shutil.rmtree(c / "state/0/_metadata/v2"), (gone,),
                          with_query=True))  # fmt: skip
    if layout == "rocksdb_zip":  # each version a whole snapshot: its SST files instead
        sst = newest_sst(checkpoint)
        gone = ("SST_FILE_MISSING", "error", sst, int(sst.split("/")[2]))
        cells.append(Cell("SST file missing", lambda c: lose(c / sst), (gone,)))
    else:  # the last version builds on the one before (format 2: down its lineage)
        (before,) = change_files(one, LAST - 1)
        older = _rel(before, checkpoint)
        cells.append(Cell("an older change file missing", lambda c: lose(c / older),
                          (("STATE_FILE_MISSING", "error", older, 1),)))  # fmt: skip
    return cells


def schema_file(checkpoint: Path) -> Path:
    """The operator's state schema file: the one operator metadata v2 names (transformWithState),
    else partition 0's."""
    named = sorted(f for f in (checkpoint / "state/0/_stateSchema").rglob("*")
                   if f.is_file() and not f.name.endswith(".crc"))  # fmt: skip
    return named[0] if named else sorted((checkpoint / "state/0/0").rglob("_metadata/schema"))[0]


def newest_sst(checkpoint: Path) -> str:
    """An SST file that only the last version's snapshot of its store names (losing it breaks
    that version alone)."""
    for zip_file in sorted((checkpoint / "state/0").rglob(f"{LAST}.zip")):
        earlier = set(ssts_named_by(zip_file.parent / f"{LAST - 1}.zip"))
        new = [s for s in ssts_named_by(zip_file) if s not in earlier]
        if new:
            return _rel(zip_file.parent / "SSTs" / new[0], checkpoint)
    raise AssertionError(f"no SST file is new in version {LAST} under {checkpoint}")


LOG_CELLS: list[Cell] = [
    Cell("commits gap", lambda c: lose(c / "commits/1"),
         (("LOG_GAP", "warning", "commits/1", None),),
         (("LOG_GAP", "warning", "commits/1", None),)),
    Cell("offsets gap the restart reads", lambda c: lose(c / "offsets/1"),
         (("LOG_GAP", "error", "offsets/1", None),)),
    Cell("commit without offsets", lambda c: lose(c / "offsets/2"),
         (("COMMIT_WITHOUT_OFFSETS", "error", "offsets/2", None),)),
    Cell("offsets of the wrong shape", lambda c: (c / "offsets/2").write_text("v1\n[1,2]\n"),
         (("LOG_ENTRY_UNREADABLE", "error", "offsets/2", None),)),
    Cell("commit of a newer Spark", lambda c: (c / "commits/2").write_text("v99\n{}\n"),
         (("LOG_ENTRY_NEWER", "error", "commits/2", None),)),
    Cell("two batches planned",
         lambda c: [shutil.copy(c / "offsets/2", c / f"offsets/{b}") for b in (3, 4)],
         (("UNCOMMITTED_BATCHES", "error", "offsets/4", None),),
         (("UNCOMMITTED_BATCH", "info", "offsets/3", None),)),
    Cell("log edited by hand",
         lambda c: hand_edit(c / "offsets/2", '"batchWatermarkMs":', '"batchWatermarkMs": '),
         (("STALE_CHECKSUM", "warning", "offsets/2", None),)),
    Cell("temporary file", lambda c: (c / "offsets/.3.0f1e2d3c.tmp").write_text("v1"),
         (("TEMPORARY_FILE", "info", "offsets/.3.0f1e2d3c.tmp", None),)),
    Cell("log entry removed, its checksum left", lambda c: (c / "offsets/0").unlink(),
         (("ORPHAN_CHECKSUM", "warning", "offsets/.0.crc", None),)),
    Cell("metadata missing", lambda c: lose(c / "metadata"),
         (("METADATA_MISSING", "error", "metadata", None),)),
    Cell("edit leftover", lambda c: (c / "_savepoint-tx-dead").mkdir(),
         (("EDIT_LEFTOVER", "warning", "_savepoint-tx-dead", None),),
         (("EDIT_LEFTOVER", "warning", "_savepoint-tx-dead", None),)),
]  # fmt: skip
"""Damage to the query logs, the same for every operator kind."""


def found(spark, checkpoint: Path) -> list[Found]:
    return sorted(
        (f.check, f.severity, f.file, f.partition_id)
        for f in damage_of(verify(spark, str(checkpoint)).findings)
    )


def twin_of(base: StreamingQuery, repaired: Path, twins: dict[str, Path], root: Path) -> Path:
    """The undamaged checkpoint given the repaired one's ``offsets/`` and ``commits/``: what a
    rollback by hand to the same batch gives (one per distinct pair of logs)."""
    logs = hashlib.sha256(repr(sorted(
        (k, v) for k, v in snapshot(repaired).items() if k.startswith(("offsets", "commits"))
    )).encode()).hexdigest()[:12]  # fmt: skip
    if logs not in twins:
        twin = twins[logs] = root / f"twin-{logs}"
        shutil.copytree(base.checkpoint, twin)
        for log in ("offsets", "commits"):
            shutil.rmtree(twin / log)
            shutil.copytree(repaired / log, twin / log)
    return twins[logs]


def check_cells(spark, base: StreamingQuery, cells: list[Cell], root: Path) -> None:
    """Every cell's checks on its own copy of ``base``, then all the restarts at once; one
    assertion at the end lists every cell that failed and why."""
    problems: list[str] = []
    restarts: list[tuple[str, Path, Path]] = []
    twins: dict[str, Path] = {}
    healthy = root / "healthy"
    shutil.copytree(base.checkpoint, healthy)
    before = snapshot(healthy)
    if found(spark, healthy) or repair(spark, str(healthy), force=True).changed:
        problems.append(f"healthy: {found(spark, healthy)}")
    if snapshot(healthy) != before:
        problems.append("healthy: changed by verify or repair")
    for cell in cells:
        copy = root / _slug(cell.name)
        if cell.relocated:
            relocate(spark, str(base.checkpoint), str(copy))
        else:
            shutil.copytree(base.checkpoint, copy)
        cell.damage(copy)
        damaged = snapshot(copy)
        if (got := found(spark, copy)) != sorted(cell.expected):
            problems.append(f"{cell.name}: found {got}, expected {sorted(cell.expected)}")
            continue
        if cell.refused:
            with pytest.raises(SavepointError, match=rf"^\[{cell.refused}\]"):
                repair(spark, str(copy), force=True)
            if snapshot(copy) != damaged:
                problems.append(f"{cell.name}: a refused repair changed files")
            continue
        mend = functools.partial(repair, spark, str(copy), force=True, **(
            {"query": query_for(base.kind)(spark, base.input_dir),
             "output_mode": KINDS[base.kind].output_mode} if cell.with_query else {}))  # fmt: skip
        done = mend()
        left = found(spark, copy)
        if left != sorted(cell.after):
            problems.append(f"{cell.name}: after repair ({done.summary}) found {left}")
            continue
        if done.changed:
            undo_repair(spark, str(copy), force=True)
            if snapshot(copy) != damaged:
                problems.append(f"{cell.name}: undo did not restore it byte for byte")
                continue
            mend()
        elif snapshot(copy) != damaged:
            problems.append(f"{cell.name}: a repair that did nothing changed files")
        if not any(f[1] == "error" for f in left):
            restarts.append((cell.name, copy, twin_of(base, copy, twins, root)))
    problems += restart_all(spark, base, restarts)
    assert not problems, "\n".join(problems)


def restart_all(spark, base: StreamingQuery, restarts: list[tuple[str, Path, Path]]) -> list[str]:
    """Restart every repaired copy and twin on the same new input; what differs."""
    base.add_input(FOURTH_WAVE["join" if base.kind == "join" else "events"])
    folders = sorted({f for _, copy, twin in restarts for f in (copy, twin)})
    for folder in folders:  # Spark stops a run when another of its query id starts
        (folder / "metadata").write_text(json.dumps({"id": str(uuid.uuid4())}))
        (folder / ".metadata.crc").unlink(missing_ok=True)
    runs = run_together(spark, [base.with_checkpoint(f) for f in folders])
    emitted = dict(zip(folders, runs, strict=True))
    problems = []
    for name, copy, twin in restarts:
        if emitted[copy] != emitted[twin]:
            problems.append(f"{name}: restarted, emitted {emitted[copy]}, its twin {emitted[twin]}")
        elif not emitted[copy]:
            problems.append(f"{name}: the restart emitted nothing")
        elif errors := [f for f in found(spark, copy) if f[1] == "error"]:
            problems.append(f"{name}: after the restart found {errors}")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "layout"), BASES, ids=[f"{k}-{la}" for k, la in BASES])
def test_state_damage(spark, bases, tmp_path, kind, layout):
    base = bases[(kind, layout)]
    check_cells(spark, base, state_cells(base.checkpoint, kind, layout), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["hdfs", "rocksdb_v2"])  # both providers and formats
def test_log_damage(spark, bases, tmp_path, layout):
    check_cells(spark, bases[("agg", layout)], LOG_CELLS, tmp_path)
