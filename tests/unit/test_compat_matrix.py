"""The README's "Supported checkpoints" table is the compat tests' recorded outcome, in step with
the committed golden checkpoints (regenerate both with ``python -m tests.compat.matrix``)."""

from __future__ import annotations

import json

from tests.compat import spark_goldens
from tests.compat.edits import EDITS
from tests.compat.golden import goldens
from tests.compat.matrix import COLUMNS, MATRIX_FILE, README, readme_table, render, row_key


def test_readme_table_is_the_recorded_matrix() -> None:
    matrix = json.loads(MATRIX_FILE.read_text())
    assert readme_table(README.read_text()) == render(matrix)


def test_matrix_has_a_row_for_every_golden_checkpoint_and_no_other() -> None:
    matrix = json.loads(MATRIX_FILE.read_text())
    assert sorted(matrix) == sorted(row_key(g) for g in goldens())


def test_every_recorded_check_passed_and_read_only_kinds_record_no_edit() -> None:
    matrix = json.loads(MATRIX_FILE.read_text())
    for golden in goldens():
        row = matrix[row_key(golden)]
        wanted = COLUMNS if golden.kind in EDITS else ("read",)
        assert row == dict.fromkeys(wanted, True), golden.id


def test_readme_table_of_sparks_goldens_is_what_their_suite_asserts() -> None:
    assert spark_goldens.readme_table(README.read_text()) == "\n".join(spark_goldens.readme_rows())
