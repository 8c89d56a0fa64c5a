"""Errors a user can act on. Each carries a stable error class (``SAVEPOINT_*``) and a message
that names the checkpoint, operator, state or column, and says what to do.

The JVM catalog raises the same classes inside Spark's AnalysisException; :func:`from_java`
turns a py4j error carrying one into the matching Python exception.
"""

from __future__ import annotations

import re

_CLASS = re.compile(r"\[(SAVEPOINT_[A-Z_]+)\]\s*(.*)", re.DOTALL)


class SavepointError(Exception):
    """Base class: something about a checkpoint, operator, state or batch is not as asked."""

    error_class = "SAVEPOINT_ERROR"

    def __init__(self, message: str, error_class: str | None = None) -> None:
        self.error_class = error_class or self.error_class
        super().__init__(f"[{self.error_class}] {message}")


class CheckpointNotFound(SavepointError):
    """The folder does not exist or is not a streaming checkpoint."""

    error_class = "SAVEPOINT_NOT_A_CHECKPOINT"


class JvmPieceMissing(SavepointError):
    """The session was started without the spark-savepoint jar."""

    error_class = "SAVEPOINT_JAR_MISSING"


_BY_CLASS: dict[str, type[SavepointError]] = {
    "SAVEPOINT_NO_SUCH_CHECKPOINT": CheckpointNotFound,
    "SAVEPOINT_NOT_A_CHECKPOINT": CheckpointNotFound,
}


def from_java(error: BaseException) -> BaseException:
    """The SavepointError inside a py4j/pyspark error, or the error itself when there is none."""
    match = _CLASS.search(str(error))
    if not match:
        return error
    error_class, message = match.group(1), match.group(2).strip().splitlines()[0]
    return _BY_CLASS.get(error_class, SavepointError)(message, error_class)
