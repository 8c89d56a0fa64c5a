"""One SparkSession and one set of real streaming checkpoints for the whole test session."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from tests.support import background  # noqa: E402
from tests.support.jars import SHORT_LIVED_JVM  # noqa: E402
from tests.support.streaming_queries import CASES, StreamingQuery, build_all  # noqa: E402

SESSION_JVM_OPTIONS = "-XX:+UseSerialGC"
"""The session's own JVM, which runs the whole suite: the serial collector (about 12% less time
than G1 on two cores); it keeps the C2 compiler (C1 alone was measured slower here). Every Spark
the tests start in another process (other Spark versions' restarts, servers, examples, crash
and race drivers) gets ``SHORT_LIVED_JVM`` through ``SPARK_SUBMIT_OPTS``, unless you set your
own."""


@pytest.fixture(scope="session", autouse=True)
def background_runs(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:  # fmt: skip
    """Calls ``start_background(tmp_path_factory)`` of every test module that has one and a
    selected test, before the first test (:mod:`tests.support.background`); ends what is left of
    their runs with the session."""
    modules = {item.module for item in request.session.items if isinstance(item, pytest.Function)}
    for module in sorted(modules, key=lambda m: m.__name__):
        start = getattr(module, "start_background", None)
        if start is not None:
            start(tmp_path_factory)
    yield
    background.close_all()


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    from spark_savepoint import session

    warehouse = tmp_path_factory.mktemp("warehouse")
    jvm_options = f"{SESSION_JVM_OPTIONS} -Dderby.system.home={warehouse}"
    spark = session(
        master="local[2]",
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.sql.warehouse.dir": str(warehouse),
            "spark.driver.extraJavaOptions": jvm_options,
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    os.environ.setdefault("SPARK_SUBMIT_OPTS", " ".join(SHORT_LIVED_JVM))  # after this JVM started
    yield spark
    spark.stop()


@pytest.fixture(scope="session")
def checkpoints(
    spark, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], StreamingQuery]:
    """Every operator kind on every provider Spark allows, built once by real streaming queries.

    Tests must not change them: copy one (``private_copy``) before editing or restarting it. For
    quicker local runs, ``SPARK_SAVEPOINT_TEST_CACHE=<dir>`` keeps them between sessions.
    """
    cache = os.environ.get("SPARK_SAVEPOINT_TEST_CACHE")
    root = Path(cache) if cache else tmp_path_factory.mktemp("checkpoints")
    queries, missing = {}, {}
    for kind, provider in CASES:
        folder = Path(root, f"{kind}-{provider}")
        if cache and (folder / "checkpoint" / "commits" / "1").exists():
            queries[(kind, provider)] = StreamingQuery(kind, provider, folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)
            missing[(kind, provider)] = folder
    return {**queries, **build_all(spark, missing)}


PrivateCopy = Callable[..., StreamingQuery]


@pytest.fixture()
def private_copy(spark, checkpoints, tmp_path: Path) -> PrivateCopy:
    """``private_copy(kind, provider, catalog=None, name=None)``: a copy of a fixture query's
    checkpoint under ``tmp_path/<name or kind-provider>`` (fresh input), safe to edit and
    restart; attached to ``spark`` as ``catalog`` when one is given."""
    from spark_savepoint import attach

    def make(kind: str, provider: str, catalog: str | None = None,
             name: str | None = None) -> StreamingQuery:  # fmt: skip
        query = checkpoints[(kind, provider)].copy(tmp_path / (name or f"{kind}-{provider}"))
        if catalog is not None:
            attach(spark, str(query.checkpoint), catalog)
        return query

    return make


@pytest.fixture()
def attached_copy(spark, tmp_path: Path) -> Iterator[Callable[[Path], Path]]:
    """``attached_copy(folder)``: a private copy of checkpoint ``folder``, attached as catalog
    ``rw`` with edits forced (a copy's file times are new, so it looks like a live query's)."""
    from spark_savepoint import attach

    def make(folder: Path) -> Path:
        target = tmp_path / folder.name
        shutil.copytree(folder, target)
        attach(spark, str(target), "rw")
        spark.conf.set("spark.savepoint.write.force", "true")
        return target

    yield make
    spark.conf.unset("spark.savepoint.write.force")
