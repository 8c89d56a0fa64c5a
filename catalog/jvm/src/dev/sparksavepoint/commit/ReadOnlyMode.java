package dev.sparksavepoint.commit;

import dev.sparksavepoint.conf.Settings;
import dev.sparksavepoint.errors.ErrorConditions;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.server.JdbcErrors;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.spark.sql.SparkSession;

/**
 * Whether a session may write: an application started with {@code spark.savepoint.readOnly=true}
 * (a server's default, fixed at start) refuses every write of its sessions, except the tool's
 * own ({@link #exempt}). The SQL check rule {@code sql.ReadOnlyGuard} refuses statements; the
 * procedures, which Spark runs while it analyzes a statement, ask {@link #refuseIfReadOnly}.
 */
public final class ReadOnlyMode {
  private static final Set<SparkSession> EXEMPT =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private static final String READ_ONLY = "SAVEPOINT_READ_ONLY";

  private ReadOnlyMode() {}

  /** Lets {@code session} write even when the application is read-only. */
  public static void exempt(SparkSession session) {
    EXEMPT.add(session);
  }

  /** Whether the application of {@code session} was started read-only. */
  public static boolean readOnly(SparkSession session) {
    return session.sparkContext().getConf().getBoolean(Settings.READ_ONLY, false);
  }

  /** True when {@code session}'s writes are refused: read-only and not exempt. */
  public static boolean guarded(SparkSession session) {
    return readOnly(session) && !EXEMPT.contains(session);
  }

  /**
   * Refuses {@code what} in a read-only application.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_READ_ONLY
   */
  public static void refuseIfReadOnly(SparkSession session, String what) {
    if (guarded(session)) throw refused(what);
  }

  /**
   * The refusal of {@code what}: SAVEPOINT_READ_ONLY, saying how to permit writes. In the Thrift
   * server's process a one-line JDBC error ({@link JdbcErrors}), elsewhere an AnalysisException.
   */
  public static RuntimeException refused(String what) {
    String message =
        what
            + " is refused: this server is read-only ("
            + Settings.READ_ONLY
            + "=true). Queries,"
            + " SHOW, DESCRIBE and EXPLAIN are allowed; to permit writes and DDL restart it with"
            + " --allow-writes (`spark-savepoint thriftserver|connect ... --allow-writes`).";
    if (JdbcErrors.serving()) {
      throw JdbcErrors.refusal(READ_ONLY, ErrorConditions.sqlState(READ_ONLY, message), message);
    }
    return Errors.analysis(READ_ONLY, message);
  }
}
