"""What a checkpoint's ``state/`` folder holds, told from a file listing alone (names, sizes,
times; no file is opened): which operator, partition, store and state version each file
belongs to, the bytes on disk per operator and partition, and the bytes each batch wrote.

**Bytes written by batch N** are the bytes of the store files of state version N+1 (Spark's
version of the state after batch N): HDFS-backed ``N+1.delta`` and ``N+1.snapshot``, RocksDB
``N+1.changelog`` and ``N+1.zip`` (also ``N+1_<id>.zip`` of checkpoint format v2) with Spark's
checksum files of them, plus the RocksDB SST and log files uploaded with that zip. Spark
uploads a version's new SST and log files before its zip, and shares them between versions;
each is counted once, with the first zip of its store written at or after it (by modification
time; one written after the last zip, an upload cut short, counts on disk only). Schema and
operator metadata files count on disk, not per batch.

>>> files = [("0/0/1.delta", 40, 1), ("0/0/2.delta", 30, 2), ("0/1/SSTs/000008-a.sst", 900, 3),
...          ("0/1/1.zip", 100, 4), ("0/1/_metadata/schema", 200, 0), ("0/_metadata/x", 9, 0)]
>>> state = StateFiles.of(files)
>>> state.written_by_batch()
{0: {0: 1040}, 1: {0: 30}}
>>> state.partition_bytes(0)
{0: 70, 1: 1200}
>>> state.operator_bytes(0), state.versions(0)
(1279, (1, 2))
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

# Spark's state store data files (catalog/jvm checkpoint.StoreFiles reads names the same way):
# version, optional state checkpoint id, kind, optional suffix (".crc": Spark's checksum file).
_VERSION_FILE = re.compile(r"\.*(\d+)(?:_[^.]*)?\.(delta|snapshot|zip|changelog)(\.crc)?")
_SHARED_FOLDERS = ("SSTs", "logs")  # RocksDB: files shared by versions, uploaded before a zip
_DEFAULT_STORE = "default"


@dataclass(frozen=True)
class StateFile:
    """One file under ``state/``: where it belongs and what it is."""

    operator_id: int
    partition: int | None
    """None for operator-wide files (``state/<op>/_metadata``, ``_stateSchema``)."""
    store: str | None
    version: int | None
    """The state version a data file (or its checksum) is named for; None for other files."""
    kind: str
    """``delta``, ``snapshot``, ``zip``, ``changelog``, ``checksum`` (Spark's, of one of those),
    ``shared`` (RocksDB SST or log file), ``other``."""
    size: int
    modified_ms: int


def classify(relative: str, size: int, modified_ms: int) -> StateFile | None:
    """The file at ``relative`` (a path under ``state/``), or None for one outside any operator.

    >>> classify("0/3/left-keyToNumValues/2.delta", 12, 0)
    ... # doctest: +NORMALIZE_WHITESPACE
    StateFile(operator_id=0, partition=3, store='left-keyToNumValues', version=2, kind='delta',
              size=12, modified_ms=0)
    >>> classify("1/0/SSTs/000009-ab.sst", 900, 5).kind, classify("1/_stateSchema/x", 1, 0).store
    ('shared', None)
    """
    parts = relative.strip("/").split("/")
    if len(parts) < 2 or not parts[0].isdigit():
        return None
    operator = int(parts[0])
    if not parts[1].isdigit():
        return StateFile(operator, None, None, None, "other", size, modified_ms)
    rest = parts[2:]
    store = _DEFAULT_STORE
    if len(rest) > 1 and rest[0] not in (*_SHARED_FOLDERS, "_metadata"):
        store, rest = rest[0], rest[1:]
    match = _VERSION_FILE.fullmatch(rest[-1]) if len(rest) == 1 else None
    if match:
        kind, version = ("checksum" if match.group(3) else match.group(2)), int(match.group(1))
    else:
        kind, version = ("shared" if rest and rest[0] in _SHARED_FOLDERS else "other"), None
    return StateFile(operator, int(parts[1]), store, version, kind, size, modified_ms)


@dataclass(frozen=True)
class StateFiles:
    """The classified files of one ``state/`` folder."""

    files: tuple[StateFile, ...]

    @staticmethod
    def of(listing: Iterable[tuple[str, int, int]]) -> StateFiles:
        """From (path under ``state/``, bytes, modification ms) tuples."""
        found = (classify(path, size, modified) for path, size, modified in listing)
        return StateFiles(tuple(f for f in found if f is not None))

    def operator_bytes(self, operator_id: int) -> int:
        """All bytes of the operator's folder: every version kept, metadata and schemas."""
        return sum(f.size for f in self.files if f.operator_id == operator_id)

    def partition_bytes(self, operator_id: int) -> dict[int, int]:
        """Bytes on disk per partition folder (all its stores and kept versions)."""
        sizes: dict[int, int] = defaultdict(int)
        for f in self.files:
            if f.operator_id == operator_id and f.partition is not None:
                sizes[f.partition] += f.size
        return dict(sorted(sizes.items()))

    def versions(self, operator_id: int) -> tuple[int, int] | None:
        """(oldest, newest) state version with files on disk, or None."""
        found = [
            f.version for f in self.files if f.operator_id == operator_id and f.version is not None
        ]
        return (min(found), max(found)) if found else None

    def written_by_batch(self) -> dict[int, dict[int, int]]:
        """{batch id: {operator id: bytes written}}, batches in order (see the module's text)."""
        written: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for f, batch in self.attributed():
            written[batch][f.operator_id] += f.size
        return {b: dict(sorted(ops.items())) for b, ops in sorted(written.items())}

    def attributed(self) -> Iterator[tuple[StateFile, int]]:
        """(file, batch id that wrote it) for every file counted per batch."""
        for f in self.files:
            if f.version is not None:
                yield f, f.version - 1
        for (operator, partition, store), shared in self._shared_by_store().items():
            zips = self._zips(operator, partition, store)
            for f in shared:
                version = next((v for t, v in zips if t >= f.modified_ms), None)
                if version is not None:
                    yield f, version - 1

    def _shared_by_store(self) -> dict[tuple[int, int | None, str | None], list[StateFile]]:
        shared: dict[tuple[int, int | None, str | None], list[StateFile]] = defaultdict(list)
        for f in self.files:
            if f.kind == "shared":
                shared[(f.operator_id, f.partition, f.store)].append(f)
        return shared

    def _zips(self, operator: int, partition: int | None, store: str | None) -> list[tuple]:
        """(modification ms, version) of a store's zips, oldest first."""
        return sorted(
            (f.modified_ms, f.version)
            for f in self.files
            if f.kind == "zip"
            and (f.operator_id, f.partition, f.store) == (operator, partition, store)
        )
