package dev.sparksavepoint.server;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.apache.hive.service.CompositeService;
import org.apache.hive.service.Service;
import org.apache.hive.service.cli.CLIService;
import org.apache.hive.service.cli.HiveSQLException;
import org.apache.hive.service.cli.OperationHandle;
import org.apache.hive.service.cli.operation.Operation;
import org.apache.hive.service.cli.operation.OperationManager;

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
 * so a Spark without the Thrift server's classes never needs them. The errors that Spark wraps
 * (any SAVEPOINT_* class the catalog raises while a statement runs) are made one line where
 * HiveServer2 looks a statement's operation up to report its state ({@link #install}).
 */
public final class JdbcErrors {
  private static volatile boolean serving;

  private JdbcErrors() {}

  /** Makes this JVM's refusals one-line JDBC errors: it serves the Thrift server. */
  public static void serve() {
    serving = true;
  }

  /**
   * Makes the errors of {@code server}'s statements that carry a SAVEPOINT_* class one line:
   * its operation manager's table of operations becomes a view that, when HiveServer2 looks an
   * operation up (to report its state to the client), replaces a failed one's exception by the
   * {@link Refusal} of its SAVEPOINT_* line. Does nothing where the fields differ.
   */
  public static void install(CompositeService server) {
    try {
      for (Service service : server.getServices()) {
        if (!(service instanceof CLIService cli)) continue;
        OperationManager manager = cli.getSessionManager().getOperationManager();
        Field table = OperationManager.class.getDeclaredField("handleToOperation");
        table.setAccessible(true);
        @SuppressWarnings("unchecked")
        Map<OperationHandle, Operation> operations =
            (Map<OperationHandle, Operation>) table.get(manager);
        if (!(operations instanceof OneLineOperations)) {
          table.set(manager, new OneLineOperations(operations));
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // another HiveServer2 layout: errors keep Spark's form
    }
  }

  /** The one SAVEPOINT_* line in {@code error} or its causes (the innermost), or null. */
  static String savepointLine(Throwable error) {
    String line = null;
    for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && message.startsWith("[SAVEPOINT_")) {
        String first = message.lines().findFirst().orElse(message).strip();
        line = first.endsWith(";") ? first.substring(0, first.length() - 1) : first;
      }
    }
    return line;
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

  /** The operations of a manager, whose failed ones report their SAVEPOINT_* line only. */
  private static final class OneLineOperations
      extends java.util.AbstractMap<OperationHandle, Operation> {
    private static final Field EXCEPTION = exceptionField();

    /** HiveServer2's long polling of a statement's state ({@code hive.server2.long.polling.timeout}). */
    private static final long POLL_MS = 5_000;

    private final Map<OperationHandle, Operation> operations;

    OneLineOperations(Map<OperationHandle, Operation> operations) {
      this.operations = operations;
    }

    private static Field exceptionField() {
      try {
        Field field = Operation.class.getDeclaredField("operationException");
        field.setAccessible(true);
        return field;
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public Operation get(Object handle) {
      Operation operation = operations.get(handle);
      if (operation != null) {
        if (forStatus()) awaitEnd(operation);
        oneLine(operation);
      }
      return operation;
    }

    /**
     * Whether HiveServer2 looks the operation up to report its state: it then waits for a
     * running statement itself (long polling, {@link #POLL_MS} by default) and reports what it
     * finds, which this view must have rewritten first. Other lookups (fetch, cancel, close)
     * never wait here.
     */
    private static boolean forStatus() {
      return StackWalker.getInstance()
          .walk(
              frames ->
                  frames
                      .limit(8)
                      .anyMatch(
                          f ->
                              f.getMethodName().equals("getOperationStatus")
                                  && f.getClassName().endsWith("CLIService")));
    }

    /** Waits, at most {@link #POLL_MS}, for a running asynchronous statement to end. */
    private static void awaitEnd(Operation operation) {
      java.util.concurrent.Future<?> running = operation.getBackgroundHandle();
      if (running == null || running.isDone() || !operation.shouldRunAsync()) return;
      try {
        running.get(POLL_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.util.concurrent.ExecutionException
          | java.util.concurrent.TimeoutException
          | java.util.concurrent.CancellationException e) {
        // still running, or ended: HiveServer2 reports which
      }
    }

    private static void oneLine(Operation operation) {
      try {
        HiveSQLException error = (HiveSQLException) EXCEPTION.get(operation);
        if (error == null || error instanceof Refusal) return;
        String line = savepointLine(error);
        if (line != null) EXCEPTION.set(operation, new Refusal(line, error.getSQLState()));
      } catch (IllegalAccessException e) {
        // left as Spark reports it
      }
    }

    @Override
    public Operation put(OperationHandle handle, Operation operation) {
      return operations.put(handle, operation);
    }

    @Override
    public Operation remove(Object handle) {
      return operations.remove(handle);
    }

    @Override
    public boolean containsKey(Object handle) {
      return operations.containsKey(handle);
    }

    @Override
    public int size() {
      return operations.size();
    }

    @Override
    public Collection<Operation> values() {
      return operations.values();
    }

    @Override
    public Set<OperationHandle> keySet() {
      return operations.keySet();
    }

    @Override
    public Set<Map.Entry<OperationHandle, Operation>> entrySet() {
      return operations.entrySet();
    }
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
