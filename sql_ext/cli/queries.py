"""Streaming queries named on the command line as ``MODULE:FUNCTION``: a function that builds
the streaming DataFrame from a SparkSession.

``upgrade check|apply --query`` plan a changed query with it. The commands that open catalogs
(``sql``, ``thriftserver``, ``connect``) take ``--query [NAME=]MODULE:FUNCTION`` (repeatable) for
the query that writes a checkpoint: its aggregation value columns then take the query's names
(``cnt``, ``total``) instead of Spark's buffer names (``count``, ``sum``), as
``attach(..., query=df)`` gives them. A plain ``MODULE:FUNCTION`` is the first checkpoint's query;
``NAME=MODULE:FUNCTION`` the query of catalog ``NAME``.

>>> catalog_queries(["jobs.orders:build", "billing=jobs/billing.py:build"],
...                 {"savepoint": "/ckpt/orders", "billing": "/ckpt/billing"})
{'savepoint': 'jobs.orders:build', 'billing': 'jobs/billing.py:build'}
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from spark_savepoint.catalog.errors import BadArguments, SavepointError
from spark_savepoint.sql_ext.session import query_conf

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

QueryBuilder = Callable[["SparkSession"], "DataFrame"]
"""What ``MODULE:FUNCTION`` names: builds the streaming DataFrame from a SparkSession."""
OUTPUT_MODES = ("append", "update", "complete")
_CATALOG_PREFIX = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.+)")


def load_query(spec: str) -> QueryBuilder:
    """The function ``module:function`` names (the module importable from the current folder
    or by a file path ``path/to/module.py:function``), which builds a streaming DataFrame from
    a SparkSession."""
    module_name, _, function = spec.partition(":")
    if not module_name or not function:
        raise BadArguments(f"--query takes MODULE:FUNCTION (e.g. jobs.orders:build), not {spec!r}")
    if module_name.endswith(".py"):
        path = Path(module_name).resolve()
        sys.path.insert(0, str(path.parent))
        module_name = path.stem
    elif "" not in sys.path:
        sys.path.insert(0, "")
    try:
        build = getattr(importlib.import_module(module_name), function)
    except (ImportError, AttributeError) as error:
        raise BadArguments(f"--query {spec}: {error}") from error
    return _checked(spec, build)


def _checked(spec: str, build: QueryBuilder) -> QueryBuilder:
    """``build``, whose failures (it raises, reads a folder that is not there, returns no
    streaming DataFrame) are one ``BadArguments`` line naming ``spec``, not a traceback."""

    def checked(spark: SparkSession) -> DataFrame:
        try:
            query = build(spark)
        except SavepointError:
            raise
        except Exception as error:  # the user's code: anything it raises
            first = (str(error).strip().splitlines() or [""])[0]
            raise BadArguments(f"--query {spec} failed to build the query: "
                               f"{type(error).__name__}: {first}") from error  # fmt: skip
        if not getattr(query, "isStreaming", False):
            raise BadArguments(f"--query {spec} returned {type(query).__name__}, not a streaming "
                               "DataFrame: build it with spark.readStream")  # fmt: skip
        return query

    return checked


def add_output_mode(parser: argparse.ArgumentParser, whose: str) -> None:
    """``--output-mode``: the output mode of ``whose`` query, as its ``writeStream`` sets it."""
    parser.add_argument(
        "--output-mode", default="append", choices=OUTPUT_MODES,
        help=f"the output mode of {whose}, as writeStream sets it (%(default)s)",
    )  # fmt: skip


def add_query_options(parser: argparse.ArgumentParser) -> None:
    """``--query [NAME=]MODULE:FUNCTION`` (repeatable) and ``--output-mode``, for a command that
    opens catalogs."""
    parser.add_argument(
        "--query", action="append", default=[], metavar="[NAME=]MODULE:FUNCTION",
        help="the streaming query that writes a checkpoint (a function that builds its "
        "DataFrame from a SparkSession; module importable from here, or path/to/file.py:function):"
        " aggregation value columns take the query's names (cnt, total) instead of Spark's "
        "(count, sum). Plain: the first checkpoint's query; NAME=: catalog NAME's (repeatable). "
        "Without it: the names the query recorded when it last ran with spark-savepoint's "
        "settings, else Spark's",
    )  # fmt: skip
    add_output_mode(parser, "the --query queries")


def catalog_queries(specs: Iterable[str], catalogs: Mapping[str, str]) -> dict[str, str]:
    """``--query`` items -> {catalog name: MODULE:FUNCTION}, each for one of ``catalogs``
    ({name: path}); a plain item is the first catalog's.

    Raises:
        BadArguments: an item names no catalog given, or a catalog has two queries.
    """
    queries: dict[str, str] = {}
    first = next(iter(catalogs), "")
    for item in specs:
        named = _CATALOG_PREFIX.fullmatch(item)
        name, spec = (named.group(1), named.group(2)) if named else (first, item)
        if name not in catalogs:
            raise BadArguments(f"--query {item}: no catalog {name!r} is given (catalogs: "
                               f"{', '.join(catalogs)}); use NAME=MODULE:FUNCTION")  # fmt: skip
        if name in queries:
            raise BadArguments(f"--query {item}: catalog {name!r} has a query already "
                               f"({queries[name]})")  # fmt: skip
        queries[name] = spec
    return queries


def load_queries(specs: Iterable[str], catalogs: Mapping[str, str]) -> dict[str, QueryBuilder]:
    """``--query`` items -> {catalog name: the function that builds its query}: each module
    imported now, so a bad one stops the command before Spark starts."""
    return {name: load_query(spec) for name, spec in catalog_queries(specs, catalogs).items()}


def query_names_conf(
    spark: SparkSession,
    catalogs: Mapping[str, str],
    queries: Mapping[str, QueryBuilder],
    output_mode: str,
) -> dict[str, str]:
    """The settings that name each catalog's aggregation value columns as its query names them,
    and give its writes the query's partitioning (``session.query_conf``; ``queries``: {catalog
    name: builder}), planned in ``spark`` against its checkpoint
    (``catalogs``: {name: path}), for a session started afterwards (spark-sql, a server)."""
    conf: dict[str, str] = {}
    for name, build in queries.items():
        conf.update(query_conf(spark, catalogs[name], build(spark), output_mode, name))
    return conf
