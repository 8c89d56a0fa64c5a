package dev.sparksavepoint.actions;

import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Undo an edit: its inverse committed as a new batch. The edit's changes are read back with
 * {@code savepoint_diff} (from the edit batch to the batch before it: exactly what to apply);
 * each state table it changed gets them taken back in one transaction ({@link CheckpointSql}):
 * entries with a key of their own by one MERGE (inserted entries deleted, deleted ones inserted,
 * changed ones set back), rows that repeat their key (list elements, a join side's rows) by
 * setting each key the edit touched back to its rows before it. A query that ran since keeps its
 * later batches; where a later batch changed what the edit changed, undo is refused (naming the
 * keys) unless {@code force}. Undoing an undo brings the edit back.
 *
 * <pre>{@code
 * UndoEdit.Result r = UndoEdit.run(spark, "/ckpt", null, false, false);  // the last edit
 * }</pre>
 */
public final class UndoEdit {
  private UndoEdit() {}

  /** State kinds whose rows repeat their key: undone by key, row sets restored. */
  static final List<String> REPEATING_KINDS = List.of("list", "join_side");

  static final int CONFLICTS_SHOWN = 5;

  /** What undoing did: the edit batch, the statements and what they did (or would do). */
  public record Result(long batchId, List<String> statements, CheckpointSql.Outcome outcome) {}

  /**
   * Undoes edit batch {@code batch} (null: the last edit) of {@code checkpoint}; with {@code
   * dryRun}, only plans it.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_NOT_AN_EDIT, SAVEPOINT_UNDO_CONFLICT
   */
  public static Result run(
      SparkSession spark, String checkpoint, Long batch, boolean force, boolean dryRun) {
    try (CheckpointSql sql = CheckpointSql.attach(spark, checkpoint, "undo")) {
      List<Long> edits =
          sql.localRows("query.edits").stream()
              .map(r -> r.getLong(r.fieldIndex("batch_id")))
              .sorted()
              .toList();
      long target = target(checkpoint, batch, edits);
      long last = sql.lastCommitted();
      List<String> statements = new ArrayList<>();
      for (StateTables.Listed listed : StateTables.of(sql)) {
        String table = sql.table(listed.uid(), listed.state());
        Dataset<Row> changed = diff(sql, table, target - 1, target).cache();
        try {
          if (changed.isEmpty()) continue;
          boolean repeating = REPEATING_KINDS.contains(listed.kind());
          List<String> key = keyColumns(sql, table, changed, repeating);
          if (last > target && !force) {
            checkNoLaterChange(checkpoint, table, changed, diff(sql, table, target, last), key);
          }
          if (repeating) {
            statements.addAll(restoreRows(table, target, key));
          } else {
            statements.add(mergeBack(table, target, changed, key));
          }
        } finally {
          changed.unpersist();
        }
      }
      CheckpointSql.Outcome outcome =
          statements.isEmpty() ? null : sql.transaction(statements, dryRun, false);
      return new Result(target, statements, outcome);
    }
  }

  private static long target(String checkpoint, Long batch, List<Long> edits) {
    if (batch == null) {
      if (edits.isEmpty()) {
        throw Errors.analysis(
            "SAVEPOINT_NOT_AN_EDIT",
            "No edit was committed to checkpoint '" + checkpoint + "': nothing to undo.");
      }
      return edits.get(edits.size() - 1);
    }
    if (!edits.contains(batch)) {
      String listed =
          edits.isEmpty()
              ? "none"
              : edits.stream().map(String::valueOf).collect(Collectors.joining(", "));
      throw Errors.analysis(
          "SAVEPOINT_NOT_AN_EDIT",
          "Batch "
              + batch
              + " of checkpoint '"
              + checkpoint
              + "' was not committed by an edit (edit batches: "
              + listed
              + "): undo takes back edits; to go back before a batch of the query, use"
              + " `spark-savepoint repair "
              + checkpoint
              + " --to-batch N`.");
    }
    return batch;
  }

  private static Dataset<Row> diff(CheckpointSql sql, String table, long from, long to) {
    return sql.sql(
        "SELECT * FROM savepoint_diff('" + plain(table) + "', " + from + ", " + to + ")");
  }

  /**
   * The columns that tell the table's entries apart, or for rows that repeat their key the
   * key's columns (from the table's {@code key_columns} property).
   */
  private static List<String> keyColumns(
      CheckpointSql sql, String table, Dataset<Row> changed, boolean repeating) {
    if (!repeating) {
      return Arrays.stream(changed.columns())
          .skip(1)
          .filter(c -> !c.equals("before") && !c.equals("after"))
          .toList();
    }
    String value = sql.rows("SHOW TBLPROPERTIES " + table + " ('key_columns')").get(0).getString(1);
    return Arrays.stream(value.split(",")).filter(c -> !c.isEmpty()).toList();
  }

  private static void checkNoLaterChange(
      String checkpoint, String table, Dataset<Row> changed, Dataset<Row> later, List<String> key) {
    String[] columns = key.toArray(new String[0]);
    String first = columns[0];
    String[] rest = Arrays.copyOfRange(columns, 1, columns.length);
    List<Row> keys =
        changed
            .select(first, rest)
            .distinct()
            .intersect(later.select(first, rest).distinct())
            .limit(CONFLICTS_SHOWN + 1)
            .collectAsList();
    if (keys.isEmpty()) return;
    String shown =
        keys.stream()
            .limit(CONFLICTS_SHOWN)
            .map(
                r ->
                    key.stream()
                        .map(k -> k + "=" + r.get(r.fieldIndex(k)))
                        .collect(Collectors.joining(", ")))
            .collect(Collectors.joining("; "));
    throw Errors.analysis(
        "SAVEPOINT_UNDO_CONFLICT",
        "Cannot undo the edit of "
            + plain(table)
            + " in checkpoint '"
            + checkpoint
            + "': later batches changed the same keys ("
            + shown
            + (keys.size() > CONFLICTS_SHOWN ? " and more" : "")
            + "). Undo with --force to set them back to before the edit (their later changes"
            + " are lost), or edit them by hand.");
  }

  /**
   * One MERGE that takes {@code batch}'s changes back: {@code savepoint_diff} from it to the
   * batch before is exactly what to apply.
   */
  private static String mergeBack(
      String table, long batch, Dataset<Row> changed, List<String> key) {
    List<String> values =
        Arrays.asList(changed.columns()).contains("before")
                && changed.schema().apply("before").dataType() instanceof StructType before
            ? List.of(before.fieldNames())
            : List.of();
    String on = key.stream().map(k -> "t." + q(k) + " <=> d." + q(k)).collect(joining(" AND "));
    List<String> columns = new ArrayList<>();
    List<String> inserted = new ArrayList<>();
    for (String k : key) {
      columns.add(q(k));
      inserted.add("d." + q(k));
    }
    for (String v : values) {
      columns.add(q(v));
      inserted.add("d.after." + q(v));
    }
    String update = values.stream().map(v -> q(v) + " = d.after." + q(v)).collect(joining(", "));
    return "MERGE INTO "
        + table
        + " t USING (SELECT * FROM savepoint_diff('"
        + plain(table)
        + "', "
        + batch
        + ", "
        + (batch - 1)
        + ")) d ON "
        + on
        + " WHEN MATCHED AND d.change_type = 'delete' THEN DELETE"
        + (values.isEmpty() ? "" : " WHEN MATCHED THEN UPDATE SET " + update)
        + " WHEN NOT MATCHED AND d.change_type <> 'delete' THEN INSERT ("
        + String.join(", ", columns)
        + ") VALUES ("
        + String.join(", ", inserted)
        + ")";
  }

  /**
   * The rows of each key {@code batch} touched set back to theirs before it: deleted, then
   * inserted (appended) as they were.
   */
  private static List<String> restoreRows(String table, long batch, List<String> key) {
    String keys = key.stream().map(UndoEdit::q).collect(joining(", "));
    String touched =
        "(SELECT DISTINCT "
            + keys
            + " FROM savepoint_diff('"
            + plain(table)
            + "', "
            + (batch - 1)
            + ", "
            + batch
            + "))";
    String on = key.stream().map(k -> "t." + q(k) + " <=> d." + q(k)).collect(joining(" AND "));
    return List.of(
        "MERGE INTO " + table + " t USING " + touched + " d ON " + on + " WHEN MATCHED THEN DELETE",
        "INSERT INTO "
            + table
            + " SELECT t.* FROM "
            + table
            + " VERSION AS OF "
            + (batch - 1)
            + " t LEFT SEMI JOIN "
            + touched
            + " d ON "
            + on);
  }

  private static java.util.stream.Collector<CharSequence, ?, String> joining(String separator) {
    return Collectors.joining(separator);
  }

  static String q(String name) {
    return CheckpointSql.quoted(name);
  }

  /** A table name without quotes, as a table function's argument takes it. */
  static String plain(String table) {
    return table.replace("`", "");
  }
}
