"""The Hadoop configuration that plans ship to their tasks (``checkpoint.TaskConf``): one
broadcast per distinct content, made again when a session setting changes it, never a stale
one. Tasks reading it on other JVMs: tests/system/test_remote_storage.py (``cluster``)."""

from __future__ import annotations

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
