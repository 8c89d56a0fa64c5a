"""Whether a server's clients may write: one rule for ``thriftserver`` and ``connect``.

Read-only unless ``allow_writes``: the jar's ``ReadOnlyGuard`` SQL extension joins the session's
extensions and ``spark.savepoint.readOnly=true`` is set at start (a client's ``SET`` cannot
change it), so writes, CALL and DDL are refused with ``SAVEPOINT_READ_ONLY``. With
``allow_writes`` the guard is not loaded at all and clients write as a local session does. The
tool's own sessions (the Thrift server's view refresher) are exempted with
``bridge.exempt_from_read_only``.

>>> access_conf("x.Extensions", allow_writes=False)[READ_ONLY_CONF]
'true'
>>> access_conf("x.Extensions", allow_writes=True)
{'spark.sql.extensions': 'x.Extensions', 'spark.savepoint.readOnly': 'false'}
>>> access_line(allow_writes=False)
'read-only'
"""

from __future__ import annotations

from spark_savepoint.catalog import bridge, settings

READ_ONLY_CONF = settings.READ_ONLY
"""The application setting the guard reads (fixed at start)."""


def access_conf(extensions: str, *, allow_writes: bool) -> dict[str, str]:
    """The settings that make a server read-only, or writable with ``allow_writes``:
    ``spark.sql.extensions`` (``extensions``, plus the guard when read-only) and
    :data:`READ_ONLY_CONF`."""
    if allow_writes:
        return {"spark.sql.extensions": extensions, READ_ONLY_CONF: "false"}
    return {
        "spark.sql.extensions": f"{extensions},{bridge.READ_ONLY_GUARD_CLASS}",
        READ_ONLY_CONF: "true",
    }


def access_line(*, allow_writes: bool) -> str:
    """How a server's start-up message says what clients may do."""
    return "writes ALLOWED (--allow-writes)" if allow_writes else "read-only"
