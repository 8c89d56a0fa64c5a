"""Build the golden checkpoints of the running pyspark version, with what that version says of them.

    <venv python> -m tests.compat.build_golden OUT_DIR

Run by a compatibility venv's interpreter (``tests.compat.venvs``) from the repository root with
``PYTHONPATH`` = repository root and ``PYSPARK_PYTHON`` = that interpreter; ``regenerate`` does so.
For every case the version supports it writes ``OUT_DIR/<case>/checkpoint`` (two micro-batches of
the default input, exactly as Spark wrote it, ``.crc`` files included; the input folder and
empty folders are deleted, a restart feeds a fresh input) and ``OUT_DIR/<case>/expected.json``:

- ``spark_version``, ``case``, ``kind``, ``provider`` (``hdfs``/``rocksdb``), ``format_version``;
- ``emitted``: the rows the build emitted, batch after batch (``StreamingQuery.run``);
- ``state`` (Spark 4.0+, which has the ``statestore`` source): table name -> ``options`` given to
  ``spark.read.format("statestore")``, the ``schema`` read and its sorted JSON-able ``rows``
  (``tests.compat.jsonable``); table names are the catalog's (``default``, ``left``, ...);
- ``state_metadata`` (Spark 4.0+): the sorted rows of ``spark.read.format("state-metadata")``.

Cases are ``<kind>-<provider>`` for every kind and provider the version allows (``tws`` needs
4.0+), and from 4.1 on ``<kind>-rocksdb_v2`` for ``V2_KINDS``, built with state store checkpoint
format version 2 (set only for that build). ``OUT_DIR/manifest.json`` lists the cases. A failing
case does not stop the others; the exit status is 1 if any failed.
"""

from __future__ import annotations

import json
import shutil
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.compat.jsonable import jsonable, sorted_rows
from tests.compat.local_spark import (
    CHECKPOINT_FORMAT_CONF,
    local_session,
    session_confs,
    spark_version,
)
from tests.support.streaming_queries import KINDS, SUPPORTED, StreamingQuery

V2_KINDS = ("agg", "dedup", "join", "tws")
"""Kinds also built with RocksDB checkpoint format version 2 (Spark 4.1+)."""

_TWS_TABLES = {
    "count": {"stateVarName": "count"},
    "history": {"stateVarName": "history", "flattenCollectionTypes": "true"},
    "items": {"stateVarName": "items", "flattenCollectionTypes": "true"},
    "timers": {"readRegisteredTimers": "true"},
}
_JOIN_TABLES = {
    "left": {"joinSide": "left"},
    "right": {"joinSide": "right"},
    **{
        f"{side}_{store}": {"storeName": f"{side}-{store}"}
        for side in ("left", "right")
        for store in ("keyToNumValues", "keyWithIndexToValue")
    },
}


@dataclass(frozen=True)
class Case:
    """One golden checkpoint: a kind on a provider in a state store checkpoint format."""

    kind: str
    provider: str
    format_version: int = 1

    @property
    def name(self) -> str:
        """The case's folder name: ``<kind>-<provider>``, ``<kind>-rocksdb_v2`` for format 2."""
        suffix = "_v2" if self.format_version == 2 else ""
        return f"{self.kind}-{self.provider}{suffix}"

    @property
    def confs(self) -> dict[str, str]:
        """Session settings the build needs on top of the query's own."""
        return {CHECKPOINT_FORMAT_CONF: "2"} if self.format_version == 2 else {}


def cases(version: tuple[int, int]) -> list[Case]:
    """The cases a Spark ``(major, minor)`` can build."""
    kinds = [kind for kind in KINDS if kind != "tws" or version >= (4, 0)]
    found = [Case(kind, provider) for kind in kinds for provider in SUPPORTED[kind]]
    if version >= (4, 1):
        found += [Case(kind, "rocksdb", 2) for kind in V2_KINDS]
    return found


def state_tables(kind: str) -> dict[str, dict[str, str]]:
    """Catalog table name -> ``statestore`` options (besides the path) of the kind's operator 0."""
    tables = {"join": _JOIN_TABLES, "tws": _TWS_TABLES}.get(kind, {"default": {}})
    return {name: {"operatorId": "0", **options} for name, options in tables.items()}


def read_state(spark: Any, checkpoint: Path, kind: str) -> dict[str, Any]:
    """Every state table of the kind's operator as Spark's ``statestore`` source reads it."""
    state = {}
    for name, options in state_tables(kind).items():
        frame = spark.read.format("statestore").options(**options).load(str(checkpoint))
        state[name] = {
            "options": options,
            "schema": frame.schema.simpleString(),
            "rows": sorted_rows(frame.collect()),
        }
    return state


def build_case(spark: Any, case: Case, folder: Path) -> dict[str, Any]:
    """Build the case's checkpoint under ``folder``; what goes to its expected.json."""
    import pyspark

    query = StreamingQuery(case.kind, case.provider, folder)
    for rows in KINDS[case.kind].initial:
        query.add_input([dict(row) for row in rows])
    with session_confs(spark, case.confs):  # readers of a v2 checkpoint need the setting too
        emitted = query.run(spark)
        state = _spark_view(spark, query.checkpoint, case.kind)
    expected: dict[str, Any] = {
        "spark_version": pyspark.__version__,
        "case": case.name,
        "kind": case.kind,
        "provider": case.provider,
        "format_version": case.format_version,
        "emitted": jsonable(emitted),
        **state,
    }
    shutil.rmtree(query.input_dir)
    _remove_empty_folders(query.checkpoint)
    return expected


def _remove_empty_folders(folder: Path) -> None:
    """Remove empty folders (``tws`` leaves ``state/0/0/_metadata``): git keeps none, so the
    golden in a checkout and a freshly built one are the same; Spark makes them again."""
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _spark_view(spark: Any, checkpoint: Path, kind: str) -> dict[str, Any]:
    """``state`` and ``state_metadata`` as the running Spark reads them (none before 4.0)."""
    if spark_version() < (4, 0):
        return {}
    metadata = spark.read.format("state-metadata").load(str(checkpoint))
    return {
        "state": read_state(spark, checkpoint, kind),
        "state_metadata": sorted_rows(metadata.collect()),
    }


def main(out_dir: Path) -> int:
    """Build every case of this version into ``out_dir``; 1 if any case failed."""
    import pyspark

    spark = local_session()
    out_dir.mkdir(parents=True, exist_ok=True)
    built, failed = [], []
    for case in cases(spark_version()):
        folder = out_dir / case.name
        print(f"pyspark {pyspark.__version__}: building {case.name}", file=sys.stderr, flush=True)
        try:
            expected = build_case(spark, case, folder)
        except Exception:  # reported; the other cases go on
            traceback.print_exc()
            failed.append(case.name)
            shutil.rmtree(folder, ignore_errors=True)
            continue
        (folder / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
        built.append(
            {
                "case": case.name,
                "kind": case.kind,
                "provider": case.provider,
                "format_version": case.format_version,
            }
        )
    manifest = {"spark_version": pyspark.__version__, "cases": built}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    spark.stop()
    if failed:
        print(f"pyspark {pyspark.__version__}: failed cases {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.compat.build_golden OUT_DIR")
    sys.exit(main(Path(sys.argv[1]).resolve()))
