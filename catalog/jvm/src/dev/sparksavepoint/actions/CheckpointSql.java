package dev.sparksavepoint.actions;

import dev.sparksavepoint.commit.DryRunReport;
import dev.sparksavepoint.commit.EditReport;
import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.write.EditTransaction;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.SparkSession;

/**
 * SQL on one checkpoint through a catalog of its own, for the actions that are statements over
 * the state tables (undo, purge): the catalog is registered for the duration of the action and
 * its path unset afterwards, and a list of statements runs as one edit transaction.
 *
 * <pre>{@code
 * try (CheckpointSql sql = CheckpointSql.attach(spark, "/ckpt", "undo")) {
 *   sql.rows("SELECT batch_id FROM " + sql.catalog() + ".query.edits");
 *   CheckpointSql.Outcome done = sql.transaction(statements, false, false);
 * }
 * }</pre>
 */
public final class CheckpointSql implements AutoCloseable {
  private final SparkSession spark;
  private final String name;

  private CheckpointSql(SparkSession spark, String name) {
    this.spark = spark;
    this.name = name;
  }

  /** A catalog named after {@code purpose} and the thread, on {@code checkpoint}. */
  public static CheckpointSql attach(SparkSession spark, String checkpoint, String purpose) {
    String name = "spark_savepoint_" + purpose + "_" + Thread.currentThread().getId();
    spark.conf().set(prefix(name), Settings.CATALOG_CLASS);
    spark.conf().set(prefix(name) + ".path", checkpoint);
    return new CheckpointSql(spark, name);
  }

  private static String prefix(String name) {
    return "spark.sql.catalog." + name;
  }

  /** The catalog's name, quoted for SQL. */
  public String catalog() {
    return quoted(name);
  }

  /** {@code <catalog>.<uid>.<state>}, quoted. */
  public String table(String uid, String state) {
    return catalog() + "." + quoted(uid) + "." + quoted(state);
  }

  /** The statement's result. */
  public Dataset<Row> sql(String statement) {
    return spark.sql(statement);
  }

  /** The statement's rows. */
  public List<Row> rows(String statement) {
    return sql(statement).collectAsList();
  }

  /** The last committed batch (-1: none), from {@code query.batches}. */
  public long lastCommitted() {
    return localRows("query.batches").stream()
        .filter(r -> r.getBoolean(r.fieldIndex("committed")))
        .mapToLong(r -> r.getLong(r.fieldIndex("batch_id")))
        .max()
        .orElse(-1);
  }

  /**
   * Every row of the catalog's local table {@code name} ({@code metadata}, {@code
   * query.batches}, ... with a version suffix such as {@code " VERSION AS OF 3"}): a plain
   * {@code SELECT *} collects the local scan's rows without a Spark job, which a projection,
   * filter or aggregate would launch.
   */
  public List<Row> localRows(String name) {
    return rows("SELECT * FROM " + catalog() + "." + name);
  }

  /** What a transaction of statements did: its commit, or with a dry run each one's plan. */
  public record Outcome(EditReport report, List<DryRunReport> planned) {}

  /**
   * Runs {@code statements} as one edit transaction: committed as one batch ({@code evicts}: see
   * {@link EditTransaction#commit(SparkSession, boolean)}), or with {@code dryRun} planned and
   * rolled back. On failure nothing is committed.
   */
  public Outcome transaction(List<String> statements, boolean dryRun, boolean evicts) {
    String id = EditTransaction.begin();
    String before = spark.conf().get(Settings.WRITE_TRANSACTION, "");
    boolean open = true;
    try {
      spark.conf().set(Settings.WRITE_TRANSACTION, id);
      for (String statement : statements) spark.sql(statement);
      spark.conf().set(Settings.WRITE_TRANSACTION, before);
      if (dryRun) return new Outcome(null, new ArrayList<>(EditTransaction.of(id).plan()));
      open = false;
      return new Outcome(EditTransaction.of(id).commit(spark, evicts), null);
    } finally {
      spark.conf().set(Settings.WRITE_TRANSACTION, before);
      if (open) EditTransaction.of(id).rollback();
    }
  }

  @Override
  public void close() {
    spark.conf().unset(prefix(name) + ".path");
  }

  static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
