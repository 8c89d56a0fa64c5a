"""The system tests' shared Thrift server: started once, for the JDBC and the BI client tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.streaming_queries import StreamingQuery, build
from tests.support.thrift_server import PASSWORD, USER, Server


@pytest.fixture(scope="session")
def live(spark, tmp_path_factory: pytest.TempPathFactory) -> StreamingQuery:
    """A private agg/hdfs query (a copied checkpoint would still name the original input
    files), to run more batches while the server is up."""
    return build(spark, "agg", "hdfs", tmp_path_factory.mktemp("live") / "agg")


@pytest.fixture(scope="session")
def server(checkpoints, live, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A read-only server whose clients log in with USER and PASSWORD (``--password-file``):
    catalogs ``savepoint`` (window aggregation), ``join`` and ``live``."""
    window = checkpoints[("window_agg", "hdfs")].checkpoint
    join = checkpoints[("join", "hdfs")].checkpoint
    folder = tmp_path_factory.mktemp("thrift")
    password_file = folder / "password"
    password_file.write_text(f"{USER}:{PASSWORD}\n")
    password_file.chmod(0o600)
    server = Server([f"savepoint={window}", f"join={join}", f"live={live.checkpoint}",
                     "--password-file", str(password_file)], folder / "server.log")  # fmt: skip
    server.password_file = password_file
    yield server
    assert server.stop() == 0, server.log.read_text()[-3000:]
    assert any("stopping the Thrift server" in line for line in server.lines)
