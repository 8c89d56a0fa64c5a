"""One SparkSession and one set of real streaming checkpoints for the whole test session."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from tests.streaming_queries import SUPPORTED, StreamingQuery, build  # noqa: E402

CASES = [(kind, provider) for kind, providers in SUPPORTED.items() for provider in providers]


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    from sql_ext import session

    warehouse = tmp_path_factory.mktemp("warehouse")
    spark = session(
        master="local[2]",
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.sql.warehouse.dir": str(warehouse),
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={warehouse}",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()


@pytest.fixture(scope="session")
def checkpoints(spark, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], StreamingQuery]:
    """Every operator kind on every provider Spark allows, built once by real streaming queries."""
    root = tmp_path_factory.mktemp("checkpoints")
    return {
        (kind, provider): build(spark, kind, provider, Path(root, f"{kind}-{provider}"))
        for kind, provider in CASES
    }
