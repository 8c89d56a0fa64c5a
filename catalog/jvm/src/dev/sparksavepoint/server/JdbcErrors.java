package dev.sparksavepoint.server;

import java.io.PrintStream;
import java.io.PrintWriter;
import org.apache.hive.service.cli.HiveSQLException;

/**
 * Refusals that a JDBC client shows on one line. Spark's Thrift server sends a failed
 * statement's exception with its whole stack trace and the causes' (HiveServer2's
 * {@code GetOperationStatus} stringifies it), and an analysis error also carries the logical
 * plan: beeline printed a read-only refusal as a hundred lines, the plan twice. Spark passes an
 * exception that already is a {@code HiveSQLException} to the client as it is; a {@link
 * Refusal} is one whose text, stack trace and causes are its one-line message.
 *
 * <p>Only in the process of {@code spark-savepoint thriftserver} ({@link #serve}, before the
 * server starts): elsewhere refusals stay Spark's {@code AnalysisException}. Loaded only then,
 * so a Spark without the Thrift server's classes never needs them.
 */
public final class JdbcErrors {
  private static volatile boolean serving;

  private JdbcErrors() {}

  /** Makes this JVM's refusals one-line JDBC errors: it serves the Thrift server. */
  public static void serve() {
    serving = true;
  }

  /** Whether {@link #serve} was called in this JVM. */
  public static boolean serving() {
    return serving;
  }

  /**
   * Throws the one-line refusal {@code [errorClass] message} with its SQLSTATE. Declared to
   * return RuntimeException so callers write {@code throw JdbcErrors.refusal(..)}; Java sees a
   * {@code HiveSQLException} as checked.
   */
  public static RuntimeException refusal(String errorClass, String sqlState, String message) {
    throw JdbcErrors.<RuntimeException>sneaky(
        new Refusal("[" + errorClass + "] " + message, sqlState));
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable error) throws T {
    throw (T) error;
  }

  /** A HiveSQLException that prints as its message only: no frames, causes or suppressed. */
  public static final class Refusal extends HiveSQLException {
    private static final StackTraceElement[] NO_FRAMES = new StackTraceElement[0];

    Refusal(String message, String sqlState) {
      super(message, sqlState);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }

    @Override
    public StackTraceElement[] getStackTrace() {
      return NO_FRAMES;
    }

    @Override
    public String toString() {
      return getMessage();
    }

    @Override
    public void printStackTrace(PrintWriter out) {
      out.println(getMessage());
    }

    @Override
    public void printStackTrace(PrintStream out) {
      out.println(getMessage());
    }
  }
}
