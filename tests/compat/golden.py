"""The committed golden checkpoints (``tests/golden/<version>/<case>/``) as test parameters.

Each case folder holds ``checkpoint/`` exactly as that pyspark version wrote it and
``expected.json`` (see ``tests.compat.build_golden``): what the query emitted and, from 4.0 on,
what that version's own ``statestore`` source read. Cases are ``<kind>-<provider>`` and, from 4.1
on, ``<kind>-rocksdb_v2`` (checkpoint format version 2).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tests.compat.jsonable import jsonable, order
from tests.support import REPO_ROOT
from tests.support.streaming_queries import UIDS, StreamingQuery

GOLDEN_DIR = REPO_ROOT / "tests" / "golden"


@dataclass(frozen=True)
class Golden:
    """One golden checkpoint written by pyspark ``version``."""

    version: str
    case: str

    @property
    def folder(self) -> Path:
        return GOLDEN_DIR / self.version / self.case

    @cached_property
    def expected(self) -> dict[str, Any]:
        return json.loads((self.folder / "expected.json").read_text())

    @property
    def kind(self) -> str:
        return self.expected["kind"]

    @property
    def provider(self) -> str:
        """``hdfs`` or ``rocksdb`` (format v2 cases are ``rocksdb`` too)."""
        return self.expected["provider"]

    @property
    def format_version(self) -> int:
        return int(self.expected["format_version"])

    @property
    def minor(self) -> str:
        """``3.5``, ``4.0``, ...: the Spark release line."""
        return ".".join(self.version.split(".")[:2])

    @property
    def spark_version_shown(self) -> str:
        """What ``metadata.spark_version`` says of it: 3.5 leaves no mark of its own."""
        return "3.5 or earlier" if self.minor == "3.5" else self.minor

    @property
    def uid(self) -> str:
        return UIDS[self.kind]

    @property
    def id(self) -> str:
        """The pytest id: ``3.5.9-agg-hdfs``."""
        return f"{self.version}-{self.case}"

    def copy(self, root: Path) -> StreamingQuery:
        """A private copy of the checkpoint under ``root`` (fresh input), safe to edit, with its
        transformWithState schema paths relocated (see ``relocate_schema_paths``)."""
        shutil.copytree(self.folder / "checkpoint", root / "checkpoint")
        relocate_schema_paths(root / "checkpoint")
        return StreamingQuery(self.kind, self.provider, root)


_SCHEMA_PATH = re.compile(r'"[^"]*?/state/(\d+)/_stateSchema/')


def relocate_schema_paths(checkpoint: Path) -> None:
    """Point the operator metadata v2 of a moved checkpoint at its own schema files.

    transformWithState's operator metadata records its state schema files by absolute path,
    and Spark (reader and restart alike) opens them there: a moved copy whose original is gone
    cannot be read until the paths name the copy's own ``_stateSchema`` files. The rewritten
    files lose their Hadoop ``.crc`` companions (the checksum would no longer match).
    """
    target = checkpoint.resolve().as_uri().replace("file:///", "file:/")
    for entry in checkpoint.glob("state/*/_metadata/v2/*"):
        if not entry.name.isdigit():
            continue
        text = entry.read_text()
        relocated = _SCHEMA_PATH.sub(lambda m: f'"{target}/state/{m.group(1)}/_stateSchema/', text)
        if relocated != text:
            entry.write_text(relocated)
            (entry.parent / f".{entry.name}.crc").unlink(missing_ok=True)


def versions() -> list[str]:
    """The pyspark versions that have goldens, oldest first."""
    found = [p.name for p in GOLDEN_DIR.iterdir() if (p / "manifest.json").exists()]
    return sorted(found, key=lambda v: tuple(int(part) for part in v.split(".")))


def goldens(version: str | None = None) -> list[Golden]:
    """Every golden case (of one version), in manifest order."""
    found = []
    for v in [version] if version else versions():
        manifest = json.loads((GOLDEN_DIR / v / "manifest.json").read_text())
        found += [Golden(v, entry["case"]) for entry in manifest["cases"]]
    return found


def reference_state(golden: Golden) -> dict[str, dict]:
    """Table -> what Spark itself read: the writing version's, or 4.0's for 3.5 checkpoints."""
    if "state" in golden.expected:
        return golden.expected["state"]
    newer = [g for g in goldens() if g.case == golden.case and "state" in g.expected]
    return newer[0].expected["state"]


def flat_values(row: dict[str, Any]) -> tuple:
    """A state row as the tuple of its flat column values: ``key``/``value`` structs and
    flattened collection cells (``user_map_key``, ...) spread into their fields, as is the
    ``groupState`` struct of (flat)MapGroupsWithState; Spark's ``__dummy__`` placeholder
    dropped. Spark's nested ``statestore`` rows and the catalog's flat rows compare by value."""
    values: list[Any] = []
    for name, cell in row.items():
        if name in ("key", "value", "user_map_key", "user_map_value", "list_element") and (
            isinstance(cell, dict)
        ):
            for k, v in cell.items():
                if k == "groupState" and isinstance(v, dict):  # (flat)MapGroupsWithState
                    values += list(v.values())
                elif k != "__dummy__":
                    values.append(v)
        elif name != "__dummy__":
            values.append(cell)
    return tuple(values)


def as_compared(rows: list[Any]) -> list[tuple]:
    """Rows (collected or JSON-able) as sorted flat value tuples."""
    return sorted((flat_values(jsonable(row)) for row in rows), key=lambda t: order(list(t)))
