"""Compatibility tests; their outcomes fill the README table on request (tests.compat.matrix)."""

from __future__ import annotations

import os

from tests.compat.matrix import ENV, write_outcomes


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: ARG001 - pytest's signature
    if os.environ.get(ENV):
        write_outcomes(os.environ[ENV])
