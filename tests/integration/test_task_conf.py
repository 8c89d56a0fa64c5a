"""The Hadoop configuration that plans ship to their tasks (``checkpoint.TaskConf``): one
broadcast per distinct content, made again when a session setting changes it, never a stale
one. Tasks reading it on other JVMs: tests/system/test_remote_storage.py (``cluster``)."""

from __future__ import annotations

from spark_savepoint import attach
from tests.support.streaming_queries import session_confs


def test_equal_settings_share_one_broadcast_and_a_changed_one_gets_its_own(spark) -> None:
    task_conf = spark._jvm.dev.sparksavepoint.checkpoint.TaskConf  # type: ignore[union-attr]
    session = spark._jsparkSession  # type: ignore[attr-defined]
    first = task_conf.of(session)
    assert task_conf.of(session).equals(first)  # the same object: one broadcast
    # a session setting: every one is copied into the session's Hadoop configuration
    with session_confs(spark, {"savepoint.test.setting": "changed"}):
        changed = task_conf.of(session)
        assert not changed.equals(first)
        assert changed.value().get("savepoint.test.setting") == "changed"
        assert first.value().get("savepoint.test.setting") is None
    assert task_conf.of(session).equals(first)  # the setting gone: the first one again


def test_read_tasks_get_the_state_sources_readers_through_one_broadcast(spark, checkpoints) -> None:
    """Spark's ``statestore`` source puts the Hadoop configuration itself into its reader
    factory, which every task would deserialize (``read.SharedReaderFactory``): the factory a
    catalog read ships in its tasks holds a broadcast instead, a few kilobytes."""
    attach(spark, str(checkpoints[("agg", "hdfs")].checkpoint), "shared_readers")
    table = spark.table("shared_readers.agg_0.default")
    assert table.count() == 3
    jvm = spark._jvm  # type: ignore[attr-defined]
    scan = table._jdf.queryExecution().executedPlan().collectLeaves().head()
    assert scan.nodeName().startswith("BatchScan"), scan.nodeName()
    shipped = jvm.org.apache.spark.util.Utils.serialize(scan.readerFactory())
    configuration = jvm.org.apache.spark.util.Utils.serialize(
        jvm.org.apache.spark.util.SerializableConfiguration(
            spark._jsparkSession.sessionState().newHadoopConf()
        )  # type: ignore[attr-defined]
    )
    assert len(shipped) < 16_000 < len(configuration), (len(shipped), len(configuration))
