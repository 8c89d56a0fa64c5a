"""Dry runs: a write's own tasks compare its rows with the state and report what would be added,
changed and removed. Nothing is claimed or written (the folder stays byte-identical), the
write's own checks still refuse bad input, and the counts match what the real write then does."""

from __future__ import annotations

import pytest

from spark_savepoint import dry_run, last_edit, savepoint_errors
from spark_savepoint.catalog.errors import BadArguments, DuplicateKey
from tests.support.checkpoint_files import last_batch, snapshot

CATALOG = "dry"
TABLE = f"{CATALOG}.agg_0.default"
UPSERT = f"INSERT INTO {TABLE} VALUES ('alice', 100, 1000), ('zed', 5, 50), ('bob', 2, 10)"
"""alice changes, zed is new, bob is given as he is (state: alice 2/17, bob 2/10, carol 1/3)."""


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_dry_runs_report_and_write_nothing(spark, private_copy, provider: str) -> None:
    query = private_copy("agg", provider, CATALOG)
    before = snapshot(query.checkpoint)

    upsert = dry_run(spark, UPSERT)
    assert (upsert.added, upsert.changed, upsert.removed) == (1, 1, 0)
    assert upsert.batch_id == last_batch(query.checkpoint) + 1
    assert sorted(upsert.samples) == ["[alice]: [2,17] -> [100,1000]", "[zed]: (none) -> [5,50]"]
    assert "1 added, 1 changed, 0 removed" in upsert.summary and "nothing written" in upsert.summary

    delete = dry_run(spark, f"DELETE FROM {TABLE} WHERE user = 'alice'")
    assert (delete.added, delete.changed, delete.removed, delete.samples) == (
        0, 0, 1, ["[alice]: [2,17] -> (removed)"]
    )  # fmt: skip
    replace = dry_run(spark, f"INSERT OVERWRITE {TABLE} VALUES ('alice', 2, 17)")
    assert (replace.added, replace.changed, replace.removed) == (0, 0, 2)
    same = dry_run(spark, f"INSERT INTO {TABLE} VALUES ('bob', 2, 10)")
    assert same.unchanged and "no batch would be committed" in same.summary
    assert snapshot(query.checkpoint) == before

    spark.sql(UPSERT)  # the real write does what the dry run said
    report = last_edit(spark)
    assert (report.batch_id, report.written, report.removed) == (upsert.batch_id, 2, 0)


def test_dry_run_refusals_change_nothing(spark, private_copy, tmp_path) -> None:
    query = private_copy("agg", "rocksdb", CATALOG)
    before = snapshot(query.checkpoint)
    with pytest.raises(DuplicateKey), savepoint_errors():  # the write's own checks run
        dry_run(spark, f"INSERT INTO {TABLE} VALUES ('zed', 1, 1), ('zed', 2, 2)")
    with pytest.raises(BadArguments, match="one INSERT, DELETE, UPDATE or MERGE"):
        dry_run(spark, f"SELECT * FROM {TABLE}")
    spark.sql(f"CREATE TABLE dry_plain (a INT) USING parquet LOCATION '{tmp_path / 'plain'}'")
    try:
        with pytest.raises(BadArguments, match="only into state tables of a savepoint catalog"):
            dry_run(spark, "INSERT INTO dry_plain VALUES (1)")
        assert spark.table("dry_plain").count() == 0
    finally:
        spark.sql("DROP TABLE dry_plain")
    assert snapshot(query.checkpoint) == before


@pytest.mark.slow
def test_dry_run_of_transform_with_state_list_and_timers(spark, private_copy) -> None:
    """List state counts keys (a new list, a longer one); timers count registrations."""
    query = private_copy("tws", "rocksdb", CATALOG)
    before = snapshot(query.checkpoint)
    history = f"{CATALOG}.tws_0.history"
    append = dry_run(spark, f"INSERT INTO {history} VALUES ('alice', 100), ('zed', 9)")
    assert (append.added, append.changed, append.removed) == (1, 1, 0)
    assert "[zed]: (none) -> [[9]]" in append.samples
    assert any(s.startswith("[alice]: [") and s.endswith(", [100]]") for s in append.samples)
    timers = dry_run(spark, f"INSERT INTO {CATALOG}.tws_0.timers VALUES ('zed', 1704200000000)")
    assert (timers.added, timers.changed, timers.removed) == (1, 0, 0)
    assert snapshot(query.checkpoint) == before


@pytest.mark.slow
def test_cli_dry_run_plans_a_script(spark, private_copy, tmp_path, capsys) -> None:
    from spark_savepoint.sql_ext.cli import main

    query = private_copy("agg", "hdfs")
    before = snapshot(query.checkpoint)
    script = tmp_path / "fix.sql"
    script.write_text(
        "USE savepoint;\n"
        "DELETE FROM agg_0.default WHERE user = 'alice';\n"
        "SELECT count(*) FROM agg_0.default;\n"
        "INSERT INTO agg_0.default VALUES ('zed', 5, 50);\n"
    )
    assert main(["sql", str(query.checkpoint), "-f", str(script), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  savepoint: dry run of agg_0.default: 0 added, 0 changed, 1 removed" in "\n".join(out)
    assert "    [alice]: [2,17] -> (removed)" in out
    assert "  skipped: not a write" in out
    assert "    [zed]: (none) -> [5,50]" in out
    assert snapshot(query.checkpoint) == before

    script.write_text("DELETE FROM agg_0.default WHERE user = 'alice';\nINSERT INTO x VALUES (1")
    assert main(["sql", str(query.checkpoint), "-f", str(script), "--dry-run"]) == 1
    assert "[SAVEPOINT_SQL_PARSE_ERROR] line 2" in capsys.readouterr().err
    assert snapshot(query.checkpoint) == before
