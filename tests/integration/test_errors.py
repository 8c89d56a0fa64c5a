"""Errors name the checkpoint and the thing asked for, and say what exists instead."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyspark.errors import PySparkException

from spark_savepoint import attach, savepoint_error, savepoint_errors
from spark_savepoint.catalog.errors import CheckpointNotFound, NoSuchState, SavepointError


@pytest.fixture()
def agg(spark, checkpoints) -> str:
    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    attach(spark, ckpt, "err")
    return ckpt


def test_unknown_path(spark, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(CheckpointNotFound, match=rf"SAVEPOINT_NO_SUCH_CHECKPOINT.*{missing}"):
        attach(spark, str(missing), "err2")


def test_folder_that_is_not_a_checkpoint(spark, tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a,b\n")
    with pytest.raises(CheckpointNotFound, match=r"not a streaming checkpoint.*data\.csv"):
        attach(spark, str(tmp_path), "err2")


def test_unknown_uid_lists_operators(spark, agg: str) -> None:
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SUCH_OPERATOR.*'dedup_4'.*agg_0"):
        spark.table("err.dedup_4.default")


def test_unknown_state_lists_states(spark, agg: str) -> None:
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SUCH_STATE.*'counts'.*agg_0.*default"):
        spark.table("err.agg_0.counts")


def test_batch_that_does_not_exist(spark, agg: str) -> None:
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SUCH_BATCH.*Batch 99.*0\.\.1"):
        spark.sql("SELECT * FROM err.agg_0.default VERSION AS OF 99").collect()


def test_uncommitted_last_batch(spark, agg: str, tmp_path: Path) -> None:
    copy = tmp_path / "ckpt"
    shutil.copytree(agg, copy)
    shutil.copy(copy / "offsets" / "1", copy / "offsets" / "2")  # planned, never committed
    attach(spark, str(copy), "err")
    with pytest.raises(Exception, match=r"SAVEPOINT_UNCOMMITTED_BATCH.*Batch 2.*commits/2"):
        spark.sql("SELECT * FROM err.agg_0.default VERSION AS OF 2").collect()
    # the default read stays on the last committed batch
    assert spark.table("err.agg_0.default").count() > 0


def test_plain_operator_id_is_a_namespace(spark, agg: str) -> None:
    by_id = spark.sql("SELECT * FROM err.`0`.default").collect()
    assert sorted(by_id) == sorted(spark.table("err.agg_0.default").collect())


def test_unsupported_ddl_says_so(spark, agg: str) -> None:
    with pytest.raises(
        Exception,
        match=r"SAVEPOINT_UNSUPPORTED\] DROP TABLE err\.agg_0\.default "
        r"is not supported by catalog err",
    ):
        spark.sql("DROP TABLE err.agg_0.default")


def test_spark_errors_carry_the_class_as_their_condition(spark, agg: str) -> None:
    with pytest.raises(PySparkException) as raised:
        spark.table("err.agg_0.counts")
    assert raised.value.getCondition() == "SAVEPOINT_NO_SUCH_STATE"
    assert raised.value.getSqlState() == "42P01"
    assert str(raised.value).startswith("[SAVEPOINT_NO_SUCH_STATE] No state 'counts' ")
    assert isinstance(savepoint_error(raised.value), NoSuchState)


def test_savepoint_errors_raises_the_typed_exception(spark, agg: str) -> None:
    with pytest.raises(NoSuchState) as raised, savepoint_errors():
        spark.table("err.agg_0.counts")
    assert raised.value.error_class == "SAVEPOINT_NO_SUCH_STATE"
    assert raised.value.message.startswith("No state 'counts' in operator agg_0")
    assert isinstance(raised.value.__cause__, PySparkException)
    with pytest.raises(ZeroDivisionError), savepoint_errors():  # others pass through
        _ = 1 / 0
    assert not isinstance(savepoint_error(ValueError("x")), SavepointError)
