"""Bad inputs, table-driven: every refusal reaches the user as one line with a stable
``SAVEPOINT_*`` class (also pyspark's ``getCondition()``), names what was asked for, and leaves
the checkpoint byte-identical (sha256 of every file before and after). docs/errors.md lists the
table by class.

A case runs on a copy of a session fixture checkpoint: shared by the cases that do not damage
it first (``setup``), private otherwise. ``action`` is SQL (``{c}`` is the copy's catalog,
``{ckpt}`` its folder, ``{tmp}`` a scratch folder), ``py: <expression>`` (our Python API) or
``cli: <arguments>`` (``spark-savepoint``, in-process).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.errors import PySparkException

from spark_savepoint import (
    attach,
    create_savepoint,
    dispose_savepoint,
    list_savepoints,
    restore_savepoint,
    session,
    take_savepoint,
    verify,
)
from spark_savepoint.catalog.bridge import CATALOG_CLASS, savepoint_error
from spark_savepoint.sql_ext.cli import main
from spark_savepoint.sql_ext.transaction import run_script

Setup = Callable[..., None]


def garble(*files: str) -> Setup:
    """Overwrite files of the copy with bytes no reader accepts (and drop their checksums)."""

    def damage(spark, folder: Path) -> None:
        for name in files:
            path = folder / name
            path.write_bytes(b"\x00garbage{")
            path.with_name(f".{path.name}.crc").unlink(missing_ok=True)

    return damage


def truncate(name: str, keep: str) -> Setup:
    def damage(spark, folder: Path) -> None:
        (folder / name).write_text(keep)
        (folder / name).with_name(f".{Path(name).name}.crc").unlink(missing_ok=True)

    return damage


def edit_tws_properties(edit: Callable[[str], str]) -> Setup:
    """Rewrite the operatorPropertiesJson of the transformWithState operator's v2 metadata."""

    def damage(spark, folder: Path) -> None:
        path = folder / "state/0/_metadata/v2/0"
        version, line, *rest = path.read_text().split("\n")
        metadata = json.loads(line)
        metadata["operatorPropertiesJson"] = edit(metadata["operatorPropertiesJson"])
        path.write_text("\n".join([version, json.dumps(metadata), *rest]))
        path.with_name(f".{path.name}.crc").unlink(missing_ok=True)

    return damage


def unknown_ttl_flag(properties: str) -> str:
    """The properties with ``"ttlEnabled": null`` for state variable ``count`` (Spark's reader
    takes that for false; a write must not)."""
    parsed = json.loads(properties)
    for variable in parsed["stateVariables"]:
        if variable["stateName"] == "count":
            variable["ttlEnabled"] = None
    return json.dumps(parsed)


def plan_batch(spark, folder: Path) -> None:
    """offsets/2 without commits/2: a query stopped mid-batch."""
    shutil.copy(folder / "offsets" / "1", folder / "offsets" / "2")


def forget_commits(spark, folder: Path) -> None:
    for commit in (folder / "commits").iterdir():
        commit.unlink()


def catalog_without_path(spark, folder: Path) -> None:
    spark.conf.set("spark.sql.catalog.bad_nopath", CATALOG_CLASS)


def catalog_like_missing(spark, folder: Path) -> None:
    spark.conf.set("spark.sql.catalog.bad_like", CATALOG_CLASS)
    spark.conf.set("spark.sql.catalog.bad_like.path", str(folder.parent / "new"))
    spark.conf.set("spark.sql.catalog.bad_like.like", str(folder.parent / "nowhere"))


def not_a_checkpoint(spark, folder: Path) -> None:
    (folder.parent / "csv").mkdir()
    (folder.parent / "csv" / "data.csv").write_text("a,b\n")


def drop_partition(last: bool = False) -> Setup:
    """Remove a partition folder of operator 0: partition 1, or the last one."""

    def damage(spark, folder: Path) -> None:
        partitions = sorted(int(p.name) for p in (folder / "state/0").iterdir() if p.name.isdigit())
        shutil.rmtree(folder / "state/0" / str(partitions[-1] if last else 1))

    return damage


def _last_entry(folder: Path, log: str) -> Path:
    return max((p for p in (folder / log).iterdir() if p.name.isdigit()), key=lambda p: int(p.name))


def offsets_without_conf(spark, folder: Path) -> None:
    """The last offsets entry: valid JSON, but a metadata line of another shape."""
    entry = _last_entry(folder, "offsets")
    entry.write_text('v1\n{"a":1}\n[1,2]\n')
    entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)


def commit_of_newer_spark(spark, folder: Path) -> None:
    entry = _last_entry(folder, "commits")
    entry.write_text('v99\n{"nextBatchWatermarkMs":0}')
    entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)


def a_file(spark, folder: Path) -> None:
    (folder.parent / "afile").write_text("not a folder\n")


def query_module(spark, folder: Path) -> None:
    """``{tmp}/badq.py``: query builders that raise, read a missing folder, build no stream."""
    (folder.parent / "badq.py").write_text(
        "def raises(spark):\n    raise ValueError('no such job')\n\n"
        "def missing_folder(spark):\n"
        "    return spark.readStream.format('json').load('/nonexistent/savepoint-input')\n\n"
        "def batch(spark):\n    return spark.range(3)\n"
    )


@dataclass(frozen=True)
class Case:
    id: str
    fixture: str
    action: str
    error_class: str
    names: str
    setup: Setup | None = None


A, AR, D, J, T = "agg-hdfs", "agg-rocksdb", "dedup-hdfs", "join-hdfs", "tws-rocksdb"
W = "window_agg-hdfs"
ROW = "('zed', 1L, 1L)"

# fmt: off
CASES = [
    # names: operators, states, batches, versions
    Case("unknown_uid", A, "SELECT * FROM {c}.dedup_7.default", "SAVEPOINT_NO_SUCH_OPERATOR",
         r"'dedup_7'.*Operators: agg_0"),
    Case("unknown_operator_id", A, "SELECT * FROM {c}.`9`.default", "SAVEPOINT_NO_SUCH_OPERATOR",
         r"'9'.*agg_0"),
    Case("unknown_state", A, "SELECT * FROM {c}.agg_0.counts", "SAVEPOINT_NO_SUCH_STATE",
         r"'counts'.*agg_0.*States: default"),
    Case("unknown_tws_variable", T, "SELECT * FROM {c}.tws_0.nope", "SAVEPOINT_NO_SUCH_STATE",
         r"'nope'.*tws_0.*count"),
    Case("describe_unknown_state", A, "DESCRIBE {c}.agg_0.nope", "SAVEPOINT_NO_SUCH_STATE",
         r"'nope'.*agg_0"),
    Case("show_tables_unknown_uid", A, "SHOW TABLES IN {c}.agg_9", "SAVEPOINT_NO_SUCH_OPERATOR",
         r"'agg_9'.*agg_0"),
    Case("batch_99", A, "SELECT * FROM {c}.agg_0.default VERSION AS OF 99",
         "SAVEPOINT_NO_SUCH_BATCH", r"Batch 99 .*Committed batches: 0\.\.1"),
    Case("batch_negative", A, "SELECT * FROM {c}.agg_0.default VERSION AS OF '-1'",
         "SAVEPOINT_NO_SUCH_BATCH", r"Batch -1 "),
    Case("metadata_batch_99", A, "SELECT * FROM {c}.metadata VERSION AS OF 99",
         "SAVEPOINT_NO_SUCH_BATCH", r"Batch 99"),
    Case("version_abc", A, "SELECT * FROM {c}.agg_0.default VERSION AS OF 'abc'",
         "SAVEPOINT_BAD_VERSION", r"'abc' of table {c}\.agg_0\.default .*'{ckpt}'"),
    Case("version_abc_other_catalog", D, "SELECT * FROM {c}.dedup_0.default VERSION AS OF 'x1'",
         "SAVEPOINT_BAD_VERSION", r"'x1' of table {c}\.dedup_0\.default .*'{ckpt}'"),
    Case("version_decimal", A, "SELECT * FROM {c}.agg_0.default VERSION AS OF '1.5'",
         "SAVEPOINT_BAD_VERSION", r"'1\.5'"),
    Case("timestamp_before_first_commit", A,
         "SELECT * FROM {c}.agg_0.default TIMESTAMP AS OF '2000-01-01'",
         "SAVEPOINT_NO_BATCH_AT_TIME", r"'{ckpt}'.*2000-01-01"),
    Case("uncommitted_batch_read", A, "SELECT * FROM {c}.agg_0.default VERSION AS OF 2",
         "SAVEPOINT_UNCOMMITTED_BATCH", r"Batch 2 .*offsets/2 exists, commits/2 does not",
         plan_batch),
    Case("uncommitted_batch_write", A, f"INSERT INTO {{c}}.agg_0.default VALUES {ROW}",
         "SAVEPOINT_UNCOMMITTED_BATCH", r"agg_0\.default.*batch 2 is planned", plan_batch),
    Case("no_committed_batch", A, "SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_NO_COMMITTED_BATCH", r"'{ckpt}' has no committed batch", forget_commits),
    Case("catalog_without_path", A, "SHOW NAMESPACES IN bad_nopath", "SAVEPOINT_PATH_NOT_SET",
         r"'bad_nopath'.*spark\.sql\.catalog\.bad_nopath\.path", catalog_without_path),
    Case("like_option_missing_template", A, "SHOW NAMESPACES IN bad_like",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"nowhere' does not exist", catalog_like_missing),
    # table functions
    Case("function_missing_folder", A,
         "SELECT * FROM savepoint_state('{tmp}/nowhere', 'agg_0', 'default')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("function_not_a_checkpoint", A, "SELECT * FROM savepoint_metadata('{tmp}/csv')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"'{tmp}/csv' is not a streaming checkpoint.*data\.csv",
         not_a_checkpoint),
    Case("function_unknown_uid", A, "SELECT * FROM savepoint_state('{ckpt}', 'agg_5', 'default')",
         "SAVEPOINT_NO_SUCH_OPERATOR", r"'agg_5'"),
    Case("function_arity", A, "SELECT * FROM savepoint_state('{ckpt}')",
         "SAVEPOINT_BAD_ARGUMENTS", r"savepoint_state takes \(path, uid, state"),
    Case("function_non_constant", A,
         "SELECT * FROM savepoint_state('{ckpt}', 'agg_0', 'default', rand())",
         "SAVEPOINT_BAD_ARGUMENTS", r"argument 4 must be a constant"),
    # DDL
    Case("create_table", A, "CREATE TABLE {c}.agg_0.t (a INT)", "SAVEPOINT_UNSUPPORTED",
         r"CREATE TABLE {c}\.agg_0\.t is not supported by catalog {c}"),
    Case("create_table_as_select", A, "CREATE TABLE {c}.agg_0.t AS SELECT 1 AS a",
         "SAVEPOINT_UNSUPPORTED", r"CREATE TABLE {c}\.agg_0\.t "),
    Case("alter_table_add_column", A, "ALTER TABLE {c}.agg_0.default ADD COLUMN b INT",
         "SAVEPOINT_UNSUPPORTED", r"ALTER TABLE {c}\.agg_0\.default "),
    Case("alter_table_properties", A,
         "ALTER TABLE {c}.agg_0.default SET TBLPROPERTIES ('a' = 'b')",
         "SAVEPOINT_UNSUPPORTED", r"ALTER TABLE {c}\.agg_0\.default "),
    Case("rename_table", A, "ALTER TABLE {c}.agg_0.default RENAME TO {c}.agg_0.other",
         "SAVEPOINT_UNSUPPORTED", r"RENAME TABLE {c}\.agg_0\.default "),
    Case("drop_table", A, "DROP TABLE {c}.agg_0.default", "SAVEPOINT_UNSUPPORTED",
         r"DROP TABLE {c}\.agg_0\.default .*defined by the query"),
    Case("drop_table_purge", A, "DROP TABLE {c}.agg_0.default PURGE", "SAVEPOINT_UNSUPPORTED",
         r"DROP TABLE {c}\.agg_0\.default PURGE"),
    Case("create_namespace", A, "CREATE NAMESPACE {c}.extra", "SAVEPOINT_UNSUPPORTED",
         r"CREATE NAMESPACE {c}\.extra "),
    Case("drop_namespace", A, "DROP NAMESPACE {c}.agg_0", "SAVEPOINT_UNSUPPORTED",
         r"DROP NAMESPACE {c}\.agg_0 "),
    Case("alter_namespace", A, "ALTER NAMESPACE {c}.agg_0 SET PROPERTIES ('a' = 'b')",
         "SAVEPOINT_UNSUPPORTED", r"ALTER NAMESPACE {c}\.agg_0 "),
    Case("insert_into_metadata", A, "INSERT INTO {c}.metadata SELECT * FROM {c}.metadata",
         "SAVEPOINT_UNSUPPORTED", r"Writing {c}\.metadata .*read-only"),
    # writes: columns and types
    Case("too_few_columns", A, "INSERT INTO {c}.agg_0.default VALUES ('zed', 1L)",
         "SAVEPOINT_COLUMN_MISMATCH", r"agg_0\.default.*gives 2 columns.*user STRING"),
    Case("too_many_columns", A, "INSERT INTO {c}.agg_0.default VALUES ('zed', 1L, 1L, 1, 1)",
         "SAVEPOINT_COLUMN_MISMATCH", r"agg_0\.default.*gives 5 columns"),
    Case("value_decimal_into_bigint", A, "INSERT INTO {c}.agg_0.default VALUES ('zed', 1.5, 2)",
         "SAVEPOINT_TYPE_MISMATCH", r"agg_0\.default.*column cnt is BIGINT.*DECIMAL"),
    Case("value_string_into_bigint", A, "INSERT INTO {c}.agg_0.default VALUES ('zed', 'x', 2)",
         "SAVEPOINT_TYPE_MISMATCH", r"column cnt is BIGINT.*STRING"),
    Case("value_double_into_bigint", A,
         "INSERT INTO {c}.agg_0.default VALUES ('zed', 1L, CAST(2 AS DOUBLE))",
         "SAVEPOINT_TYPE_MISMATCH", r"column total is BIGINT.*DOUBLE"),
    Case("key_int_into_string", A, "INSERT INTO {c}.agg_0.default VALUES (5, 1L, 1L)",
         "SAVEPOINT_TYPE_MISMATCH", r"column user \(key\) is STRING.*INT"),
    Case("key_decimal_into_bigint", D, "INSERT INTO {c}.dedup_0.default VALUES (6.5)",
         "SAVEPOINT_TYPE_MISMATCH", r"dedup_0\.default.*event_id \(key\) is BIGINT.*DECIMAL"),
    Case("key_string_into_bigint", D, "INSERT INTO {c}.dedup_0.default VALUES ('6')",
         "SAVEPOINT_TYPE_MISMATCH", r"event_id \(key\) is BIGINT.*STRING"),
    Case("key_double_into_bigint", D,
         "INSERT INTO {c}.dedup_0.default VALUES (CAST(6 AS DOUBLE))",
         "SAVEPOINT_TYPE_MISMATCH", r"event_id \(key\) is BIGINT.*DOUBLE"),
    Case("tws_key_int_into_string", T, "INSERT INTO {c}.tws_0.count VALUES (7, 1L)",
         "SAVEPOINT_TYPE_MISMATCH", r"tws_0\.count.*user \(key\) is STRING"),
    # writes: keys
    Case("null_key_values", A, "INSERT INTO {c}.agg_0.default VALUES (NULL, 1L, 1L)",
         "SAVEPOINT_NULL_KEY", r"agg_0\.default.*key column user is given as NULL"),
    Case("null_key_select", A,
         "INSERT INTO {c}.agg_0.default SELECT CAST(NULL AS STRING), 1L, 1L",
         "SAVEPOINT_NULL_KEY", r"agg_0\.default.*key column user is NULL"),
    Case("null_key_among_rows", AR,
         "INSERT INTO {c}.agg_0.default SELECT CASE WHEN user = 'bob' THEN NULL ELSE user END,"
         " cnt, total FROM {c}.agg_0.default",
         "SAVEPOINT_NULL_KEY", r"agg_0\.default.*key column user is NULL"),
    Case("null_key_dedup", D, "INSERT INTO {c}.dedup_0.default VALUES (NULL)",
         "SAVEPOINT_NULL_KEY", r"dedup_0\.default.*event_id"),
    Case("null_key_tws", T, "INSERT INTO {c}.tws_0.count SELECT CAST(NULL AS STRING), 1L",
         "SAVEPOINT_NULL_KEY", r"tws_0\.count.*user"),
    Case("duplicate_key", A, "INSERT INTO {c}.agg_0.default VALUES ('x', 1L, 1L), ('x', 2L, 2L)",
         "SAVEPOINT_DUPLICATE_KEY", r"agg_0\.default.*key user=x more than once"),
    Case("duplicate_key_overwrite", AR,
         "INSERT OVERWRITE {c}.agg_0.default VALUES ('x', 1L, 1L), ('x', 2L, 2L)",
         "SAVEPOINT_DUPLICATE_KEY", r"user=x"),
    Case("duplicate_key_union", A,
         "INSERT INTO {c}.agg_0.default SELECT * FROM {c}.agg_0.default UNION ALL "
         "SELECT * FROM {c}.agg_0.default", "SAVEPOINT_DUPLICATE_KEY", r"more than once"),
    Case("duplicate_key_apart", A,
         "INSERT INTO {c}.agg_0.default VALUES ('x', 1L, 1L), ('y', 1L, 1L), ('x', 2L, 2L)",
         "SAVEPOINT_DUPLICATE_KEY", r"user=x more than once"),
    Case("duplicate_timer_apart", T,
         "INSERT INTO {c}.tws_0.timers VALUES ('x', 1000L), ('x', 2000L), ('y', 1000L),"
         " ('x', 1000L)", "SAVEPOINT_DUPLICATE_KEY", r"tws_0\.timers.*x"),
    Case("duplicate_key_dedup", D, "INSERT INTO {c}.dedup_0.default VALUES (9L), (9L)",
         "SAVEPOINT_DUPLICATE_KEY", r"dedup_0\.default.*event_id=9"),
    Case("duplicate_key_tws", T, "INSERT INTO {c}.tws_0.count VALUES ('x', 1L), ('x', 2L)",
         "SAVEPOINT_DUPLICATE_KEY", r"tws_0\.count.*x"),
    # read-only state
    Case("insert_join_raw_store", J,
         "INSERT INTO {c}.join_0.left_keyToNumValues "
         "SELECT * FROM {c}.join_0.left_keyToNumValues",
         "SAVEPOINT_READ_ONLY_STATE",
         r"join_0\.left_keyToNumValues.*internal stores are read-only: write the join side"),
    # damaged files
    Case("garbled_commit", A, "SELECT * FROM {c}.agg_0.default", "SAVEPOINT_CORRUPT_FILE",
         r"File commits/1 of checkpoint '{ckpt}'.*batch 1.*VERSION AS OF 0", garble("commits/1")),
    Case("empty_commit", A, "SELECT * FROM {c}.agg_0.default", "SAVEPOINT_CORRUPT_FILE",
         r"File commits/1 .*empty", truncate("commits/1", "")),
    Case("garbled_old_commit", A, "SELECT * FROM {c}.agg_0.default VERSION AS OF 0",
         "SAVEPOINT_CORRUPT_FILE", r"File commits/0 .*batch 0 cannot be read or written\. Restore",
         garble("commits/0")),
    Case("garbled_offsets", A, "SELECT * FROM {c}.agg_0.default", "SAVEPOINT_CORRUPT_FILE",
         r"File offsets/1 .*batch 1", garble("offsets/1")),
    Case("truncated_offsets", A, f"INSERT INTO {{c}}.agg_0.default VALUES {ROW}",
         "SAVEPOINT_CORRUPT_FILE", r"File offsets/1 .*batch 1", truncate("offsets/1", "v1\n")),
    Case("garbled_metadata", A, "UPDATE {c}.agg_0.default SET cnt = 1",
         "SAVEPOINT_CORRUPT_FILE", r"File metadata of checkpoint '{ckpt}'.*query id",
         garble("metadata")),
    Case("garbled_operator_metadata", A, "SHOW TABLES IN {c}.agg_0", "SAVEPOINT_CORRUPT_FILE",
         r"File state/0/_metadata/metadata .*operator 0", garble("state/0/_metadata/metadata")),
    Case("garbled_tws_operator_metadata", T, "SELECT * FROM {c}.tws_0.count",
         "SAVEPOINT_CORRUPT_FILE", r"state/0/_metadata/v2/", garble("state/0/_metadata/v2/0")),
    Case("garbled_tws_properties", T, "SELECT * FROM {c}.tws_0.count", "SAVEPOINT_CORRUPT_FILE",
         r"state/0/_metadata/v2/.*operatorPropertiesJson.*operator 0",
         edit_tws_properties(lambda properties: "{not json")),
    # fails closed: a write must not guess that a state variable has no TTL
    Case("tws_ttl_flag_unknown", T, "INSERT INTO {c}.tws_0.count VALUES ('zed', 1L)",
         "SAVEPOINT_CORRUPT_FILE", r"operatorPropertiesJson of tws_0.*no ttlEnabled flag for"
         r" state variable count.*cannot be told whether count has a TTL",
         edit_tws_properties(unknown_ttl_flag)),
    Case("garbled_state_schema", A, "SELECT * FROM {c}.agg_0.default", "SAVEPOINT_CORRUPT_FILE",
         r"state/0/ \(state schema files of agg_0\.default\).*batch 1",
         garble("state/0/0/_metadata/schema")),
    Case("garbled_delta_read", A, "SELECT * FROM {c}.agg_0.default", "SAVEPOINT_CORRUPT_FILE",
         r"agg_0\.default.*batch 1.*state/0/1/ \(version 2", garble("state/0/1/2.delta")),
    # an upsert reads only the partitions it writes (alice's is 1; the others commit an empty
    # delta, unread): `verify` finds a garbled file in any
    Case("garbled_delta_write", A, "INSERT INTO {c}.agg_0.default VALUES ('alice', 1L, 1L)",
         "SAVEPOINT_CORRUPT_FILE", r"agg_0\.default.*state/0/1/", garble("state/0/1/2.delta")),
    Case("garbled_changelog_read", AR, "SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_CORRUPT_FILE", r"agg_0\.default.*state/0/1/",
         garble("state/0/1/2.changelog")),
    # our Python API
    Case("attach_missing_folder", A, "py: attach(spark, '{tmp}/nowhere', 'bad_x')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("attach_not_a_checkpoint", A, "py: attach(spark, '{tmp}/csv', 'bad_x')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"'{tmp}/csv' .*data\.csv", not_a_checkpoint),
    Case("session_missing_folder", A, "py: session('{tmp}/nowhere', 'bad_x')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere'"),
    Case("create_savepoint_target_not_empty", A, "py: create_savepoint(spark, '{ckpt}', '{ckpt}')",
         "SAVEPOINT_TARGET_NOT_EMPTY", r"in '{ckpt}': the target exists"),
    Case("create_savepoint_missing_template", A,
         "py: create_savepoint(spark, '{tmp}/new', '{tmp}/nowhere')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("create_savepoint_template_not_a_checkpoint", A,
         "py: create_savepoint(spark, '{tmp}/new', '{tmp}/csv')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"'{tmp}/csv'", not_a_checkpoint),
    Case("create_savepoint_template_uncommitted", A,
         "py: create_savepoint(spark, '{tmp}/new', '{ckpt}')",
         "SAVEPOINT_NO_COMMITTED_BATCH", r"'{ckpt}'", forget_commits),
    # the command line (one line on stderr, exit code 1)
    Case("cli_conf_missing_folder", A, "cli: conf {tmp}/nowhere",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("cli_conf_not_a_checkpoint", A, "cli: conf {tmp}/csv --format defaults",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"'{tmp}/csv' .*data\.csv", not_a_checkpoint),
    Case("cli_sql_missing_folder", A, "cli: sql {tmp}/nowhere -e 'SELECT 1'",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere'"),
    Case("cli_create_target_not_empty", A, "cli: create {ckpt} --like {ckpt}",
         "SAVEPOINT_TARGET_NOT_EMPTY", r"'{ckpt}'"),
    Case("cli_thriftserver_port_in_use", A, "cli: thriftserver {ckpt} --port {busy_port}",
         "SAVEPOINT_PORT_IN_USE", r"Port \d+ on 127\.0\.0\.1 is already in use.*--port"),
    Case("cli_thriftserver_port_out_of_range", A, "cli: thriftserver {ckpt} --port 99999",
         "SAVEPOINT_BAD_ARGUMENTS", r"--port 99999 is no TCP port: give one from 1 to 65535"),
    Case("cli_connect_port_zero", A, "cli: connect {ckpt} --port 0",
         "SAVEPOINT_BAD_ARGUMENTS", r"--port 0 is no TCP port"),
    Case("attach_dotted_catalog_name", A, "py: attach(spark, '{ckpt}', 'a.b')",
         "SAVEPOINT_BAD_ARGUMENTS", r"'a\.b' cannot name a catalog: .*ASCII letters"),
    Case("attach_empty_catalog_name", A, "py: attach(spark, '{ckpt}', '')",
         "SAVEPOINT_BAD_ARGUMENTS", r"'' cannot name a catalog"),
    Case("session_catalog_name_with_dash", A, "py: session('{ckpt}', 'orders-ckpt')",
         "SAVEPOINT_BAD_ARGUMENTS", r"'orders-ckpt' cannot name a catalog"),
    Case("cli_sql_catalog_given_twice", A, "cli: sql a={ckpt} a={tmp} -e 'SELECT 1'",
         "SAVEPOINT_BAD_ARGUMENTS", r"Catalog 'a' is given twice \({ckpt} and {tmp}\)"),
    Case("cli_sql_empty_catalog_name", A, "cli: sql ={ckpt} -e 'SELECT 1'",
         "SAVEPOINT_BAD_ARGUMENTS", r"'' cannot name a catalog"),
    Case("take_negative_batch", A, "py: take_savepoint(spark, '{ckpt}', '{tmp}/sp', batch=-1)",
         "SAVEPOINT_BAD_ARGUMENTS", r"'{ckpt}' at batch -1: a batch id is 0 or more"),
    Case("cli_take_negative_batch", A, "cli: savepoint take {ckpt} {tmp}/sp --batch -1",
         "SAVEPOINT_BAD_ARGUMENTS", r"at batch -1: a batch id is 0 or more"),
    Case("restore_zero_partitions", A,
         "py: restore_savepoint(spark, '{ckpt}', '{tmp}/restored', partitions=0)",
         "SAVEPOINT_BAD_ARGUMENTS", r"'{ckpt}' onto 0 partitions: give 1 or more"),
    Case("cli_restore_uid_reserved_name", A,
         "cli: savepoint restore {ckpt} {tmp}/r --uid 0=sources", "SAVEPOINT_BAD_ARGUMENTS",
         r"--uid 0=sources: 'sources' cannot be .* name the catalog uses itself .*choose another"),
    Case("cli_restore_uid_not_ascii", A,
         "cli: savepoint restore {ckpt} {tmp}/r --uid 0=bestellungen_ü",
         "SAVEPOINT_BAD_ARGUMENTS", r"'ü' is not ASCII"),
    Case("cli_inspect_html_into_missing_folder", A,
         "cli: inspect {ckpt} --html {tmp}/nowhere/report.html",
         "SAVEPOINT_BAD_ARGUMENTS", r"--html .*its folder {tmp}/nowhere does not exist"),
    # damage Spark's reader fails on with a trace, or silently (issue 32)
    Case("missing_partition_folder", A, "SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_CORRUPT_FILE", r"Folder state/0/1 of checkpoint '{ckpt}' is missing "
         r"\(agg_0\.default has \d+ partitions.*spark-savepoint doctor", drop_partition()),
    Case("missing_last_partition_folder", A, "SELECT count(*) FROM {c}.agg_0.default",
         "SAVEPOINT_CORRUPT_FILE", r"Folder state/0/\d+ of checkpoint '{ckpt}' is missing",
         drop_partition(last=True)),
    Case("missing_partition_folder_rocksdb", AR, "SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_CORRUPT_FILE", r"Folder state/0/1 .* is missing", drop_partition()),
    Case("missing_partition_folder_insert", A, f"INSERT INTO {{c}}.agg_0.default VALUES {ROW}",
         "SAVEPOINT_CORRUPT_FILE", r"Folder state/0/1 .* cannot be read or written",
         drop_partition()),
    Case("missing_partition_folder_join", J, "SELECT * FROM {c}.join_0.left",
         "SAVEPOINT_CORRUPT_FILE", r"Folder state/0/1 .* is missing", drop_partition()),
    Case("offsets_of_another_shape", A, "SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_CORRUPT_FILE", r"File offsets/\d+ of checkpoint '{ckpt}' is damaged \(its "
         r"metadata line records no spark\.sql\.shuffle\.partitions", offsets_without_conf),
    Case("commit_of_a_newer_spark", A, "SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_SPARK_VERSION", r"File commits/\d+ of checkpoint '{ckpt}' was written by a "
         r"newer Spark than this one \(log version v99; Spark [\d.]+ reads up to v\d\)",
         commit_of_newer_spark),
    Case("commit_of_a_newer_spark_dedup", D, "SELECT * FROM {c}.dedup_0.default",
         "SAVEPOINT_SPARK_VERSION", r"commits/\d+ .* newer Spark", commit_of_newer_spark),
    Case("metadata_damaged_insert", A, f"INSERT INTO {{c}}.agg_0.default VALUES {ROW}",
         "SAVEPOINT_CORRUPT_FILE", r"File metadata of checkpoint '{ckpt}' is damaged .* cannot "
         r"be written or copied.*\(reads work\)\. Run `spark-savepoint repair",
         garble("metadata")),
    Case("metadata_damaged_delete", A, "DELETE FROM {c}.agg_0.default WHERE user = 'bob'",
         "SAVEPOINT_CORRUPT_FILE", r"File metadata .* cannot be written", garble("metadata")),
    Case("metadata_damaged_take", A, "py: take_savepoint(spark, '{ckpt}', '{tmp}/sp')",
         "SAVEPOINT_CORRUPT_FILE", r"File metadata .* cannot be written or copied",
         garble("metadata")),
    Case("metadata_damaged_cli_restore", A, "cli: savepoint restore {ckpt} {tmp}/r",
         "SAVEPOINT_CORRUPT_FILE", r"File metadata of checkpoint", garble("metadata")),
    # a wrong place: empty, a file, nothing there
    Case("function_empty_path", A, "SELECT * FROM savepoint_metadata('')",
         "SAVEPOINT_BAD_ARGUMENTS", r"savepoint_metadata\('', \.\.\.\) names no checkpoint"),
    Case("function_blank_path", A, "SELECT * FROM savepoint_metadata('  ')",
         "SAVEPOINT_BAD_ARGUMENTS", r"names no checkpoint: its first argument is the folder"),
    Case("function_state_empty_path", A,
         "SELECT * FROM savepoint_state('', 'agg_0', 'default')",
         "SAVEPOINT_BAD_ARGUMENTS", r"savepoint_state\('', \.\.\.\) names no checkpoint"),
    Case("function_state_unknown_state", A,
         "SELECT * FROM savepoint_state('{ckpt}', 'agg_0', 'nope')",
         "SAVEPOINT_NO_SUCH_STATE", r"nope"),
    Case("attach_a_file", A, "py: attach(spark, '{tmp}/afile', 'bad_x')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"'{tmp}/afile' is a file, not a checkpoint folder",
         a_file),
    Case("session_a_file", A, "py: session('{tmp}/afile', 'bad_x')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"is a file, not a checkpoint folder", a_file),
    Case("function_a_file", A, "SELECT * FROM savepoint_metadata('{tmp}/afile')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"is a file", a_file),
    Case("cli_conf_a_file", A, "cli: conf {tmp}/afile",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"is a file", a_file),
    Case("verify_a_file", A, "py: verify(spark, '{tmp}/afile')",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"afile", a_file),
    Case("cli_inspect_a_file", A, "cli: inspect {tmp}/afile",
         "SAVEPOINT_NOT_A_CHECKPOINT", r"is a file", a_file),
    Case("list_missing_folder", A, "py: list_savepoints(spark, '{tmp}/nowhere')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT",
         r"Savepoint folder '{tmp}/nowhere' does not exist: list takes the folder"),
    Case("sql_list_missing_folder", A, "SELECT * FROM savepoint_list('{tmp}/nowhere')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"Savepoint folder '{tmp}/nowhere' does not exist"),
    Case("cli_list_missing_folder", A, "cli: savepoint list {tmp}/nowhere",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"Savepoint folder '{tmp}/nowhere' does not exist"),
    Case("dispose_missing_folder", A, "py: dispose_savepoint(spark, '{tmp}/nowhere')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT",
         r"Savepoint '{tmp}/nowhere' does not exist: there is nothing to dispose of"),
    Case("cli_dispose_missing_folder", A, "cli: savepoint dispose {tmp}/nowhere",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"nothing to dispose of"),
    Case("verify_missing_folder", A, "py: verify(spark, '{tmp}/nowhere')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("cli_repair_missing_folder", A, "cli: repair {tmp}/nowhere",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("cli_inspect_missing_folder", A, "cli: inspect {tmp}/nowhere",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("take_missing_checkpoint", A, "py: take_savepoint(spark, '{tmp}/nowhere', '{tmp}/sp')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("restore_missing_savepoint", A,
         "py: restore_savepoint(spark, '{tmp}/nowhere', '{tmp}/r')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("cli_relocate_missing_source", A, "cli: relocate {tmp}/nowhere {tmp}/dst",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"'{tmp}/nowhere' does not exist"),
    Case("take_target_not_empty", A, "py: take_savepoint(spark, '{ckpt}', '{ckpt}')",
         "SAVEPOINT_TARGET_NOT_EMPTY", r"'{ckpt}'"),
    Case("restore_target_not_empty", A, "py: restore_savepoint(spark, '{ckpt}', '{ckpt}')",
         "SAVEPOINT_TARGET_NOT_EMPTY", r"'{ckpt}'"),
    Case("cli_take_target_not_empty", A, "cli: savepoint take {ckpt} {ckpt}",
         "SAVEPOINT_TARGET_NOT_EMPTY", r"'{ckpt}'"),
    Case("cli_relocate_onto_itself", A, "cli: relocate {ckpt} {ckpt}",
         "SAVEPOINT_TARGET_NOT_EMPTY", r"'{ckpt}'"),
    # the partition count of a restore
    Case("restore_too_many_partitions", A,
         "py: restore_savepoint(spark, '{ckpt}', '{tmp}/r', partitions=100000)",
         "SAVEPOINT_BAD_ARGUMENTS", r"Cannot restore onto 100000 partitions: give 1 to 10000 "
         r"\(each partition is a state store.*spark\.savepoint\.maxPartitions"),
    Case("cli_restore_too_many_partitions", A,
         "cli: savepoint restore {ckpt} {tmp}/r --partitions 100000",
         "SAVEPOINT_BAD_ARGUMENTS", r"onto 100000 partitions: give 1 to 10000"),
    Case("call_restore_too_many_partitions", A,
         "CALL {c}.system.restore_savepoint('{tmp}/r', 100000)",
         "SAVEPOINT_BAD_ARGUMENTS", r"onto 100000 partitions"),
    Case("call_restore_negative_partitions", A,
         "CALL {c}.system.restore_savepoint('{tmp}/r', -3)",
         "SAVEPOINT_BAD_ARGUMENTS", r"onto -3 partitions: give 1 to"),
    Case("cli_restore_negative_partitions", A,
         "cli: savepoint restore {ckpt} {tmp}/r --partitions -1",
         "SAVEPOINT_BAD_ARGUMENTS", r"onto -1 partitions: give 1 or more"),
    Case("restore_unknown_provider", A,
         "py: restore_savepoint(spark, '{ckpt}', '{tmp}/r', provider='leveldb')",
         "SAVEPOINT_BAD_ARGUMENTS", r"Unknown state store provider 'leveldb': use hdfs or rocksdb"),
    # a --query that is no query
    Case("cli_upgrade_query_raises", A, "cli: upgrade check {ckpt} --query {tmp}/badq.py:raises",
         "SAVEPOINT_BAD_ARGUMENTS", r"--query {tmp}/badq\.py:raises failed to build the "
         r"query: ValueError: no such job", query_module),
    Case("cli_upgrade_query_reads_missing_folder", A,
         "cli: upgrade check {ckpt} --query {tmp}/badq.py:missing_folder",
         "SAVEPOINT_BAD_ARGUMENTS", r"badq\.py:missing_folder failed to build the query: \w+",
         query_module),
    Case("cli_upgrade_query_not_streaming", A,
         "cli: upgrade check {ckpt} --query {tmp}/badq.py:batch",
         "SAVEPOINT_BAD_ARGUMENTS", r"badq\.py:batch returned DataFrame, not a streaming "
         r"DataFrame", query_module),
    Case("cli_upgrade_apply_query_raises", A,
         "cli: upgrade apply {ckpt} {tmp}/up --query {tmp}/badq.py:raises",
         "SAVEPOINT_BAD_ARGUMENTS", r"failed to build the query: ValueError", query_module),
    Case("cli_upgrade_query_no_function", A,
         "cli: upgrade check {ckpt} --query {tmp}/badq.py:nope",
         "SAVEPOINT_BAD_ARGUMENTS", r"--query {tmp}/badq\.py:nope: .*nope", query_module),
    # keys and values a write cannot take
    Case("window_key_given_twice", W,
         "INSERT INTO {c}.agg_0.default SELECT * FROM {c}.agg_0.default "
         "UNION ALL SELECT * FROM {c}.agg_0.default",
         "SAVEPOINT_DUPLICATE_KEY", r"key window=\{{2024-01-01 10:\d\d:00, 2024-01-01 "
         r"10:\d\d:00\}}, user=\w+ more than once"),
    Case("insert_null_key", A, "INSERT INTO {c}.agg_0.default VALUES (NULL, 1L, 1L)",
         "SAVEPOINT_NULL_KEY", r"user"),
    Case("select_unknown_sources_table", A, "SELECT * FROM {c}.sources.nope",
         "SAVEPOINT_NO_SUCH_STATE", r"nope"),
    Case("select_unknown_query_table", A, "SELECT * FROM {c}.query.nope",
         "SAVEPOINT_NO_SUCH_STATE", r"nope"),
    Case("call_unknown_procedure", A, "CALL {c}.system.nope()",
         "SAVEPOINT_NO_SUCH_PROCEDURE", r"nope"),
    # savepoint_diff
    Case("diff_arity", A, "SELECT * FROM savepoint_diff('{c}.agg_0.default')",
         "SAVEPOINT_BAD_ARGUMENTS", r"savepoint_diff takes \(table, from \[, to\]\), got 1"),
    Case("diff_no_such_state", A, "SELECT * FROM savepoint_diff('{c}.agg_0.nope', 0)",
         "SAVEPOINT_NO_SUCH_STATE", r"nope"),
    Case("diff_log_table", A, "SELECT * FROM savepoint_diff('{c}.query.batches', 0)",
         "SAVEPOINT_BAD_ARGUMENTS", r"'.*query.batches', \.\.\.\) names no state table"),
    Case("diff_null_point", A, "SELECT * FROM savepoint_diff('{c}.agg_0.default', NULL)",
         "SAVEPOINT_BAD_ARGUMENTS", r"argument 2 must be a batch id or the folder"),
    Case("diff_batch_99", A, "SELECT * FROM savepoint_diff('{c}.agg_0.default', 0, 99)",
         "SAVEPOINT_NO_SUCH_BATCH", r"Batch 99 .*Committed batches: 0\.\.1"),
    Case("diff_missing_folder", A,
         "SELECT * FROM savepoint_diff('{c}.agg_0.default', '{tmp}/nowhere')",
         "SAVEPOINT_NO_SUCH_CHECKPOINT", r"nowhere"),
    Case("changes_reversed_range", A, "SELECT * FROM savepoint_changes('{c}.agg_0.default', 1, 0)",
         "SAVEPOINT_BAD_ARGUMENTS", r"names no range of at most 100 batches"),
    Case("changes_log_table", A, "SELECT * FROM savepoint_changes('{c}.query.batches', 0)",
         "SAVEPOINT_BAD_ARGUMENTS", r"savepoint_changes\('.*query.batches', \.\.\.\) names no "
         r"state table"),
    Case("changes_folder_point", A,
         "SELECT * FROM savepoint_changes('{c}.agg_0.default', '{tmp}/sp')",
         "SAVEPOINT_BAD_ARGUMENTS", r"argument 2 must be a batch id"),
    Case("purge_bad_time", D, "cli: purge {ckpt} --older-than yesterday",
         "SAVEPOINT_BAD_ARGUMENTS", r"'yesterday' is no time: give one as 2026-01-01 10:00:00"),
    Case("purge_unknown_table", D, "cli: purge {ckpt} --table dedup_0.nope",
         "SAVEPOINT_BAD_ARGUMENTS", r"'{ckpt}' has no state table dedup_0.nope: .*dedup_0.default"),
    Case("purge_unknown_column", D,
         "cli: purge {ckpt} --older-than 2024-01-01T10:00:00 --column nope",
         "SAVEPOINT_BAD_ARGUMENTS", r"No state table of checkpoint '{ckpt}' has a column 'nope'"),
    Case("purge_by_nothing", D, "cli: purge {ckpt} --no-evictable --no-expired",
         "SAVEPOINT_BAD_ARGUMENTS", r"Nothing to purge in '{ckpt}' by"),
    # --atomic scripts
    Case("atomic_script_repeats_a_key", A,
         "py: run_script(spark, \"DELETE FROM {c}.agg_0.default WHERE user = 'bob'; "
         "INSERT INTO {c}.agg_0.default VALUES ('x', 1, 1), ('x', 2, 2)\")",
         "SAVEPOINT_DUPLICATE_KEY", r"user=x.* The script's transaction was rolled back: "
         r"nothing was written\.$"),
    Case("atomic_script_with_a_query", A, "py: run_script(spark, 'SELECT 1')",
         "SAVEPOINT_BAD_ARGUMENTS", r"--atomic takes INSERT, DELETE, UPDATE, MERGE and USE"),
]
# fmt: on


def digest(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (and the folders, by name)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture(scope="module")
def shared(spark, checkpoints, tmp_path_factory) -> dict[str, tuple[str, Path]]:
    """One copy per fixture checkpoint, each attached as its own catalog; never damaged."""
    root = tmp_path_factory.mktemp("bad-inputs")
    copies = {}
    for name in sorted({case.fixture for case in CASES}):
        kind, provider = name.rsplit("-", 1)
        folder = checkpoints[(kind, provider)].copy(root / name).checkpoint
        catalog = "bad_" + name.replace("-", "_")
        attach(spark, str(folder), catalog)
        copies[name] = (catalog, folder)
    return copies


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(spark, checkpoints, shared, tmp_path: Path, capsys, case: Case) -> None:
    catalog, folder = shared[case.fixture]
    if case.setup is not None:
        kind, provider = case.fixture.rsplit("-", 1)
        folder = checkpoints[(kind, provider)].copy(tmp_path).checkpoint
        case.setup(spark, folder)
        catalog = "bad_private"
        spark.conf.set(f"spark.sql.catalog.{catalog}", CATALOG_CLASS)
        spark.conf.set(f"spark.sql.catalog.{catalog}.path", str(folder))
    names = {"c": catalog, "ckpt": str(folder), "tmp": str(tmp_path)}
    before = digest(folder)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        action = case.action.format(**names, busy_port=busy.getsockname()[1])
        error = _refusal(spark, action, capsys)
    assert error.error_class == case.error_class, str(error)
    assert "\n" not in str(error), str(error)
    assert error.message and error.message[0] not in "[ "
    pattern = case.names.format(**{key: re.escape(value) for key, value in names.items()})
    assert re.search(pattern, str(error)), f"{pattern!r} not in {error}"
    assert digest(folder) == before


def _refusal(spark, action: str, capsys):
    """Runs the action; returns the SavepointError it was refused with."""
    kind, _, rest = action.partition(": ")
    if kind == "cli":
        capsys.readouterr()
        assert main(shlex.split(rest)) == 1
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("spark-savepoint: [SAVEPOINT_"), err
        error = savepoint_error(Exception(err[0]))
        assert error is not None
        return error
    try:
        if kind == "py":
            eval(
                rest,
                {
                    "spark": spark,
                    "attach": attach,
                    "session": session,  # noqa: S307
                    "create_savepoint": create_savepoint,
                    "take_savepoint": take_savepoint,
                    "restore_savepoint": restore_savepoint,
                    "list_savepoints": list_savepoints,
                    "dispose_savepoint": dispose_savepoint,
                    "run_script": run_script,
                    "verify": verify,
                },
            )
        else:
            spark.sql(action).collect()
    except PySparkException as raised:  # what spark.sql raises: the condition is ours
        assert raised.getCondition().startswith("SAVEPOINT_"), raised.getCondition()
        assert str(raised).startswith(f"[{raised.getCondition()}] ")
        error = savepoint_error(raised)
        assert error is not None and error.error_class == raised.getCondition()
        return error
    except Exception as raised:  # our Python API: already a SavepointError
        error = savepoint_error(raised)
        assert error is raised, type(raised)
        return error
    pytest.fail(f"not refused: {action}")
