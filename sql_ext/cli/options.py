"""The options every command shares: ``-v/--verbose`` (through :func:`command`) and
``KEY=VALUE`` lists.

>>> key_values(["a=1", "b=x=y"], "--conf")
{'a': '1', 'b': 'x=y'}
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from spark_savepoint.catalog.errors import BadArguments


def common() -> argparse.ArgumentParser:
    """A parent parser with the options of every command and sub-command: ``--verbose``."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="Spark's default logs and full error traces"
    )
    return parser


def command(
    subparsers: argparse._SubParsersAction, name: str, **kwargs: Any
) -> argparse.ArgumentParser:
    """Adds command ``name`` (``kwargs`` as for ``add_parser``) with the :func:`common`
    options."""
    return subparsers.add_parser(name, parents=[common()], **kwargs)


def key_values(items: Sequence[str], option: str) -> dict[str, str]:
    """``KEY=VALUE`` items of a repeatable ``option`` -> {key: value}; anything else stops the
    command with a one-line message."""
    pairs = dict(item.partition("=")[::2] for item in items)
    bad = [item for item in items if "=" not in item]
    if bad:
        raise SystemExit(f"spark-savepoint: {option} takes KEY=VALUE, got {bad[0]!r}")
    return pairs


def check_port(port: int) -> int:
    """``port`` when a server can listen on it (1 to 65535).

    Raises:
        BadArguments: ``--port 99999``, ``--port 0``.
    """
    if not 1 <= port <= 65535:
        raise BadArguments(f"--port {port} is no TCP port: give one from 1 to 65535.")
    return port
