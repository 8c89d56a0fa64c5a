"""The edit each kind of golden checkpoint gets, and what the restarted query must emit after it.

Each edit is two SQL statements (so two new committed batches): one removes a key, one adds or
overwrites one. The expected rows are the output of the kind's default restart wave (see
``tests/support/streaming_queries.py``) on the edited state; they are the same on every Spark
version.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """SQL statements on ``{ns}`` (the operator's namespace) and the restart output they cause."""

    statements: tuple[str, ...]
    restart: list[dict]
    """The rows the query emits on the default restart wave after the edit (all batches)."""

    def sql(self, namespace: str) -> list[str]:
        """The statements with ``{ns}`` replaced by ``namespace`` (``catalog.uid``) and
        ``{catalog}`` by its catalog."""
        catalog = namespace.split(".")[0]
        return [statement.format(ns=namespace, catalog=catalog) for statement in self.statements]


_COUNTS_AFTER_EDIT = [
    {"user": "alice", "cnt": 2, "total": 8},  # deleted: counts only the restart wave
    {"user": "dave", "cnt": 11, "total": 108},  # inserted as 10/100, plus one event of 8
]

EDITS: dict[str, Edit] = {
    "agg": Edit(
        (
            "DELETE FROM {ns}.default WHERE user = 'alice'",
            "INSERT INTO {ns}.default VALUES ('dave', 10, 100)",
        ),
        _COUNTS_AFTER_EDIT,
    ),
    "pandas_state": Edit(
        (
            "DELETE FROM {ns}.default WHERE user = 'alice'",
            "INSERT INTO {ns}.default SELECT 'dave' AS user, 10L AS cnt, 100L AS total",
        ),
        _COUNTS_AFTER_EDIT,
    ),
    "window_agg": Edit(
        (
            "DELETE FROM {ns}.default WHERE user = 'alice'",
            "INSERT INTO {ns}.default VALUES (named_struct("
            "'start', TIMESTAMP '2024-01-01 10:05:00Z', 'end', TIMESTAMP '2024-01-01 10:10:00Z'),"
            " 'dave', 5)",
        ),
        [
            # alice's [10:00, 10:05) window was deleted: the duplicate event at 10:02 counts anew
            {
                "window_start": "2024-01-01 10:00:00",
                "window_end": "2024-01-01 10:05:00",
                "user": "alice",
                "count": 1,
            },
            {
                "window_start": "2024-01-01 10:05:00",
                "window_end": "2024-01-01 10:10:00",
                "user": "alice",
                "count": 1,
            },
            {
                "window_start": "2024-01-01 10:05:00",
                "window_end": "2024-01-01 10:10:00",
                "user": "dave",
                "count": 6,
            },
        ],
    ),  # fmt: skip
    "dedup": Edit(
        (
            "DELETE FROM {ns}.default WHERE event_id = 3",
            "INSERT INTO {ns}.default VALUES (CAST(5 AS BIGINT))",
        ),
        # 3 was forgotten, so it is new again; 5 is now known; 6 is new
        [
            {
                "event_id": 3,
                "user": "alice",
                "item": "pear",
                "amount": 7,
                "ts": "2024-01-01 10:02:00",
            },
            {
                "event_id": 6,
                "user": "dave",
                "item": "plum",
                "amount": 8,
                "ts": "2024-01-01 10:08:00",
            },
        ],
    ),  # fmt: skip
    "join": Edit(
        (
            "DELETE FROM {ns}.left WHERE field0 = 'c'",
            "INSERT INTO {ns}.right VALUES ('d', 'd', TIMESTAMP '2024-01-01 10:06:00Z', 41)",
        ),
        # left c is gone: right c finds nothing; left d finds both right d rows
        [
            {
                "key": "d",
                "left_ts": "2024-01-01 10:07:00",
                "left_value": 4,
                "right_ts": f"2024-01-01 10:0{minute}:00",
                "right_value": value,
            }
            for minute, value in ((5, 40), (6, 41))
        ],
    ),
    "tws": Edit(
        (
            "DELETE FROM {ns}.count WHERE user = 'alice'",
            "INSERT INTO {ns}.count VALUES ('dave', 10)",
        ),
        [{"user": "alice", "count": 2}, {"user": "dave", "count": 11}],
    ),
}
"""Kind -> its edit."""

WATERMARK_EDIT = Edit(
    (
        "UPDATE {catalog}.query.batches SET watermark = TIMESTAMP '2024-01-01 10:05:00Z'"
        " WHERE batch_id = 1",
    ),
    # the watermark moves from 09:56 to 10:05: the restart wave's alice event at 10:02 is late
    # and dropped, and window [10:00, 10:05) is evicted; only the later windows are updated
    [
        {
            "window_start": "2024-01-01 10:05:00",
            "window_end": "2024-01-01 10:10:00",
            "user": user,
            "count": 1,
        }
        for user in ("alice", "dave")
    ],
)
"""The watermark edit of the ``window_agg`` goldens (one committed batch)."""

OVERWRITE_EDIT = Edit(
    (
        "INSERT OVERWRITE {ns}.default SELECT * FROM {ns}.default WHERE user != 'alice'"
        " UNION ALL SELECT 'dave', 10L, 100L",
    ),
    _COUNTS_AFTER_EDIT,
)
"""The ``agg`` edit as one INSERT OVERWRITE (full images, one committed batch): the same state,
so the same restart output."""
