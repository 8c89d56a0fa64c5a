package dev.sparksavepoint.commit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The SQL text of the statements an edit runs, for its record ({@code query.edits}): the
 * analyzer rule {@code sql.StatementText} notes the text of every write statement the driver
 * thread analyzes ({@link #noted}); a single statement's edit records it, a transaction the texts
 * of its statements ({@link #during}). Each text is taken once. Statements built without SQL
 * (the DataFrame API, Spark Connect's plans) have none.
 */
public final class EditStatements {
  private EditStatements() {}

  /** Spark's write commands, by class name (its internal classes stay unlinked). */
  public static final Set<String> WRITES =
      Set.of(
          "InsertIntoStatement",
          "AppendData",
          "OverwriteByExpression",
          "OverwritePartitionsDynamic",
          "DeleteFromTable",
          "UpdateTable",
          "MergeIntoTable",
          "ReplaceData",
          "WriteDelta");

  private static final ThreadLocal<String> NOTED = new ThreadLocal<>();
  private static final ThreadLocal<List<String>> DURING = new ThreadLocal<>();

  /** The text of the write statement being analyzed on this thread (null: none, not SQL). */
  public static void noted(String text) {
    NOTED.set(text);
  }

  /** The statement noted last on this thread, or null; taken: a later write has none. */
  public static String take() {
    String text = NOTED.get();
    NOTED.remove();
    return text;
  }

  /** What the edit committed now ran: a transaction's statements, else the one noted last. */
  static List<String> current() {
    List<String> during = DURING.get();
    if (during != null) return during;
    String text = take();
    return text == null ? List.of() : List.of(text);
  }

  /** {@code body}, whose edit records {@code statements} (a transaction's commit). */
  public static <T> T during(List<String> statements, Supplier<T> body) {
    List<String> before = DURING.get();
    DURING.set(new ArrayList<>(statements));
    try {
      return body.get();
    } finally {
      DURING.set(before);
    }
  }
}
