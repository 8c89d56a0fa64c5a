package dev.sparksavepoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.sparksavepoint.actions.UpgradeApply;
import dev.sparksavepoint.catalog.SavepointCatalog;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.commit.QueryRuns;
import dev.sparksavepoint.commit.ReadOnlyMode;
import dev.sparksavepoint.doctor.Repair;
import dev.sparksavepoint.doctor.RepairPlan;
import dev.sparksavepoint.localfs.ForklessLocalFileSystem;
import dev.sparksavepoint.localfs.ForklessLocalFs;
import dev.sparksavepoint.procedures.DirectCalls;
import dev.sparksavepoint.server.PasswordFileAuthenticator;
import dev.sparksavepoint.sql.LateInstall;
import dev.sparksavepoint.sql.ReadOnlyGuard;
import dev.sparksavepoint.sql.SavepointExtensions;
import dev.sparksavepoint.sql.ValueNamesListener;
import dev.sparksavepoint.upgrade.PlannedQuery;
import dev.sparksavepoint.upgrade.QueryNames;
import dev.sparksavepoint.upgrade.QueryPartitioning;
import dev.sparksavepoint.upgrade.UpgradeReport;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.classic.SparkSession;

/**
 * The JVM entry points of the Python package, and only those: Python calls these static methods
 * (through py4j, with {@code spark._jsparkSession}) and names the classes below in Spark
 * settings, so the packages behind them can change without touching Python. Only what SQL
 * cannot carry is here: installing into a running session and what takes a streaming Dataset
 * (upgrades); every action, report and transaction is a stored
 * procedure ({@code dev.sparksavepoint.procedures.Procedures}).
 */
public final class PythonEntry {
  /** {@code spark.sql.catalog.<name>}: a checkpoint as a catalog. */
  public static final String CATALOG_CLASS = SavepointCatalog.class.getName();

  /** {@code spark.sql.extensions}: table functions and key widening. */
  public static final String EXTENSIONS_CLASS = SavepointExtensions.class.getName();

  /** {@code spark.sql.extensions}: the read-only mode of servers. */
  public static final String READ_ONLY_GUARD_CLASS = ReadOnlyGuard.class.getName();

  /** {@code spark.sql.streaming.streamingQueryListeners}: when this driver's queries stopped. */
  public static final String QUERY_LISTENER_CLASS = QueryRuns.class.getName();

  /** {@code spark.sql.streaming.streamingQueryListeners}: queries record their value names. */
  public static final String VALUE_NAMES_LISTENER_CLASS = ValueNamesListener.class.getName();

  /** {@code spark.hadoop.fs.file.impl}: local files without a process per chmod. */
  public static final String LOCAL_FILE_SYSTEM_CLASS = ForklessLocalFileSystem.class.getName();

  /** {@code spark.hadoop.fs.AbstractFileSystem.file.impl}: the same for FileContext. */
  public static final String LOCAL_FS_CLASS = ForklessLocalFs.class.getName();

  /** {@code hive.server2.custom.authentication.class}: the Thrift server's password file. */
  public static final String PASSWORD_AUTHENTICATOR_CLASS =
      PasswordFileAuthenticator.class.getName();

  /** The system property naming the Thrift server's password file. */
  public static final String PASSWORD_FILE_PROPERTY =
      PasswordFileAuthenticator.PASSWORD_FILE_PROPERTY;

  private PythonEntry() {}

  /**
   * Installs the table functions, analyzer rules and query listeners into a session started
   * without the project's settings ({@link LateInstall}); null, or what could not be installed.
   */
  public static String installLate(SparkSession spark) {
    return LateInstall.install(spark);
  }

  /** Lets {@code spark} write even when the application is read-only. */
  public static void exemptFromReadOnly(SparkSession spark) {
    ReadOnlyMode.exempt(spark);
  }

  /**
   * Runs procedure {@code name} of catalog {@code catalog} with {@code arguments} (a JSON object
   * of typed values by parameter name), as {@code CALL} does ({@link DirectCalls}); its rows as
   * JSON ({@code {"columns": [...], "rows": [[...]]}}). The Python verbs of a classic session
   * call procedures so: no statement to parse, analyze and collect (and Spark 3.5 has no CALL).
   */
  public static String callProcedure(
      SparkSession spark, String catalog, String name, String arguments) {
    return DirectCalls.json(spark, catalog, name, arguments);
  }

  /**
   * The class names above by their Python constant's name ({@code CATALOG_CLASS}, ...), for a
   * test that the Python side spells them the same.
   */
  public static Map<String, String> classNames() {
    Map<String, String> names = new TreeMap<>();
    names.put("CATALOG_CLASS", CATALOG_CLASS);
    names.put("EXTENSIONS_CLASS", EXTENSIONS_CLASS);
    names.put("READ_ONLY_GUARD_CLASS", READ_ONLY_GUARD_CLASS);
    names.put("QUERY_LISTENER_CLASS", QUERY_LISTENER_CLASS);
    names.put("VALUE_NAMES_LISTENER_CLASS", VALUE_NAMES_LISTENER_CLASS);
    names.put("LOCAL_FILE_SYSTEM_CLASS", LOCAL_FILE_SYSTEM_CLASS);
    names.put("LOCAL_FS_CLASS", LOCAL_FS_CLASS);
    names.put("PASSWORD_AUTHENTICATOR_CLASS", PASSWORD_AUTHENTICATOR_CLASS);
    names.put("PASSWORD_FILE_PROPERTY", PASSWORD_FILE_PROPERTY);
    return names;
  }

  /**
   * Plans streaming Dataset {@code query} (output mode {@code outputMode}) with the confs of
   * {@code checkpoint}'s last batch, without reading input, and matches its stateful operators
   * with the checkpoint's; {@code maps}: "OLD=NEW" overrides. Returns the report as JSON
   * ({@link UpgradeReport#toJson}).
   */
  public static String upgradeCheck(
      SparkSession spark,
      String checkpoint,
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query,
      String outputMode,
      List<String> maps) {
    Checkpoint old = Checkpoint.open(checkpoint, spark.sessionState().newHadoopConf());
    PlannedQuery planned = PlannedQuery.plan(spark, query, outputMode, old);
    try {
      return UpgradeReport.of(old, planned, maps, spark.sessionState().newHadoopConf()).toJson();
    } finally {
      planned.delete();
    }
  }

  /**
   * Writes checkpoint {@code target} that streaming Dataset {@code query} continues from, with
   * {@code checkpoint}'s state upgraded ({@link UpgradeApply}); a one-line summary.
   */
  public static String upgradeApply(
      SparkSession spark,
      String checkpoint,
      String target,
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query,
      String outputMode,
      List<String> maps,
      boolean allowDrop) {
    return UpgradeApply.run(spark, checkpoint, target, query, outputMode, maps, allowDrop);
  }

  /**
   * Repairs {@code checkpoint} as {@code CALL repair(dryRun, toBatch, force)} does, where
   * streaming Dataset {@code query} (output mode {@code outputMode}) also writes the state
   * schema files it lost; the rows as a JSON array of [action, file, why].
   */
  public static String repairWithQuery(
      SparkSession spark,
      String checkpoint,
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query,
      String outputMode,
      boolean dryRun,
      long toBatch,
      boolean force) {
    RepairPlan.Plan plan = RepairPlan.of(spark, checkpoint, toBatch, query, outputMode);
    ArrayNode rows = new ObjectMapper().createArrayNode();
    for (Object[] row : Repair.rows(spark, plan, dryRun, force)) {
      ArrayNode values = rows.addArray();
      for (Object value : row) values.add(value == null ? null : value.toString());
    }
    return rows.toString();
  }

  /**
   * What streaming Dataset {@code query} tells of {@code checkpoint}, planned as
   * {@link #upgradeCheck} plans, as JSON: {@code valueNames}, the names it gives the value
   * columns of its aggregations (operator id to names in column order, null: keep), and
   * {@code partitionedBy}, the columns its stateful operators' input is hash partitioned by
   * (operator id to names; where keys live when it runs without the strict distribution).
   */
  public static String queryFacts(
      SparkSession spark,
      String checkpoint,
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query,
      String outputMode) {
    Checkpoint old = Checkpoint.open(checkpoint, spark.sessionState().newHadoopConf());
    PlannedQuery planned = PlannedQuery.plan(spark, query, outputMode, old);
    try {
      com.fasterxml.jackson.databind.ObjectMapper json =
          new com.fasterxml.jackson.databind.ObjectMapper();
      com.fasterxml.jackson.databind.node.ObjectNode facts = json.createObjectNode();
      facts.set("valueNames", json.valueToTree(QueryNames.valueNames(planned)));
      facts.set("partitionedBy", json.valueToTree(QueryPartitioning.of(planned.executed())));
      return facts.toString();
    } finally {
      planned.delete();
    }
  }
}
