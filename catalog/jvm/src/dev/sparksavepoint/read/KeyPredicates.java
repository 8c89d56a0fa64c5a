package dev.sparksavepoint.read;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The keys a filter pins down: when every key column is compared with literals ({@code =},
 * {@code <=>} or {@code IN}, in conjunctions), the keys it can match are the combinations of
 * those literals. Anything else (a range, a partial key, an OR across columns) pins nothing and
 * the table is scanned. Values are Spark's internal ones (e.g. {@code UTF8String}), in key order.
 *
 * <pre>
 *   WHERE user = 'alice'                   -> [("alice")]
 *   WHERE user IN ('a', 'b') AND day = 3   -> [("a", 3), ("b", 3)]
 *   WHERE user > 'a'                       -> null (scan)
 * </pre>
 */
final class KeyPredicates {
  /** The most keys a lookup looks up; a filter naming more is answered by a scan. */
  static final int MAX_KEYS = 10_000;

  private KeyPredicates() {}

  /**
   * The keys a filter pins down, and the predicates that pinned them.
   *
   * @param keys internal values in the order of the key columns
   */
  record Pinned(List<Object[]> keys, Predicate[] used) {}

  /**
   * The keys {@code predicates} (a conjunction) can match, or null when they do not pin every
   * column of the key.
   *
   * @param columns the flat columns of the key fields, in key order
   * @param schema the flat schema, for the columns' types
   */
  static Pinned pin(Predicate[] predicates, List<String> columns, StructType schema) {
    Map<String, Set<Object>> allowed = new HashMap<>();
    List<Predicate> used = new ArrayList<>();
    for (Predicate p : predicates) collect(p, columns, schema, allowed, used);
    long combinations = 1;
    for (String column : columns) {
      Set<Object> values = allowed.get(column);
      if (values == null) return null;
      combinations *= Math.max(1, values.size());
      if (combinations > MAX_KEYS) return null;
    }
    List<Object[]> keys = new ArrayList<>();
    keys.add(new Object[columns.size()]);
    for (int i = 0; i < columns.size(); i++) {
      List<Object[]> next = new ArrayList<>();
      for (Object[] prefix : keys) {
        for (Object value : allowed.get(columns.get(i))) {
          Object[] key = prefix.clone();
          key[i] = value;
          next.add(key);
        }
      }
      keys = next;
    }
    return new Pinned(keys, used.toArray(new Predicate[0]));
  }

  /** Narrows {@code allowed} by one conjunct; conjuncts of other shapes narrow nothing. */
  private static void collect(
      Predicate p,
      List<String> columns,
      StructType schema,
      Map<String, Set<Object>> allowed,
      List<Predicate> used) {
    if (p.name().equals("AND")) {
      for (Expression child : p.children()) {
        if (child instanceof Predicate c) collect(c, columns, schema, allowed, used);
      }
      return;
    }
    Expression[] args = p.children();
    boolean comparison = (p.name().equals("=") || p.name().equals("<=>")) && args.length == 2;
    if (!comparison && !(p.name().equals("IN") && args.length >= 1)) return;
    if (comparison && args[1] instanceof NamedReference && args[0] instanceof Literal<?>) {
      args = new Expression[] {args[1], args[0]};
    }
    String column = column(args[0], columns);
    if (column == null) return;
    DataType type = schema.apply(column).dataType();
    Set<Object> values = new LinkedHashSet<>();
    for (int i = 1; i < args.length; i++) {
      if (!(args[i] instanceof Literal<?> literal) || !literal.dataType().equals(type)) return;
      // a NULL key field matches only <=> NULL
      if (literal.value() != null || p.name().equals("<=>")) values.add(literal.value());
    }
    allowed.merge(
        column,
        values,
        (a, b) -> {
          a.retainAll(b);
          return a;
        });
    used.add(p);
  }

  /** The key column {@code e} refers to, or null. */
  private static String column(Expression e, List<String> columns) {
    if (!(e instanceof NamedReference ref) || ref.fieldNames().length != 1) return null;
    return columns.contains(ref.fieldNames()[0]) ? ref.fieldNames()[0] : null;
  }
}
