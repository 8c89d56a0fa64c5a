"""A ``pyspark-client`` program (run in the client's own virtualenv, see
:mod:`tests.support.connect_venv`): what a ``spark-savepoint connect`` server answers to a client
without its token, with a wrong one and with the right one (a read, then a write); prints one
JSON object.

    python connect_auth_client.py '{"port": 15002, "token": "..."}'
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pyspark.sql import SparkSession

TABLE = "savepoint.agg_0.default"


def outcome(action: Callable[[], Any]) -> dict[str, Any]:
    """What ``action`` returned, or the first line of what it raised and its error class."""
    try:
        return {"ok": action()}
    except Exception as error:
        return {"type": type(error).__name__, "class": getattr(error, "getCondition", str)(),
                "text": str(error)[:3000]}  # fmt: skip


@contextmanager
def remote(url: str) -> Iterator[SparkSession]:
    """A new Connect session on ``url``, stopped afterwards (quietly: a refused client's stop
    would raise again and hide the first error)."""
    spark = SparkSession.builder.remote(url).create()
    try:
        yield spark
    finally:
        try:
            spark.stop()
        except Exception:
            pass


def users(url: str) -> list[str]:
    """The users of the served catalog's aggregation state, read through ``url``."""
    with remote(url) as spark:
        return [row[0] for row in spark.sql(f"SELECT user FROM {TABLE} ORDER BY user").collect()]


def insert(url: str) -> None:
    with remote(url) as spark:
        spark.conf.set("spark.savepoint.write.force", "true")  # a copy looks like a live query's
        spark.sql(f"INSERT INTO {TABLE} VALUES ('zed', 1, 1)").collect()


def append(url: str) -> None:
    with remote(url) as spark:
        spark.conf.set("spark.savepoint.write.force", "true")
        frame = spark.createDataFrame([("zed", 1, 1)], "user string, cnt bigint, total bigint")
        frame.writeTo(TABLE).append()


def main(args: dict[str, Any]) -> dict[str, Any]:
    base = f"sc://localhost:{args['port']}"
    good = f"{base}/;token={args['token']}"
    return {
        "no_token": outcome(lambda: users(base)),
        "wrong_token": outcome(lambda: users(f"{base}/;token=not-{args['token']}")),
        "read": outcome(lambda: users(good)),
        "insert": outcome(lambda: insert(good)),
        "append": outcome(lambda: append(good)),
        "after": outcome(lambda: users(good)),
    }


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))), flush=True)
