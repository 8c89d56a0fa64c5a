package dev.sparksavepoint.upgrade;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.streaming.operators.stateful.StateStoreWriter;

/**
 * The columns by which each stateful operator of a planned or running query receives its input:
 * the hash partitioning of the operator's child, which is where a query run without the strict
 * distribution ({@code checkpoint.KeyPlacement}) puts each key's state. Example: for
 * {@code repartition("user").groupBy("user", "item")} it gives {@code {0: [user]}}. Operators
 * whose input is not hash partitioned by plain columns (and stream-stream joins, always placed
 * by their whole key) are left out.
 */
public final class QueryPartitioning {
  private QueryPartitioning() {}

  /** Operator id to the names of the columns its input is hash partitioned by. */
  public static Map<Long, List<String>> of(SparkPlan executed) {
    Map<Long, List<String>> columns = new HashMap<>();
    collect(executed, columns);
    return columns;
  }

  private static void collect(SparkPlan plan, Map<Long, List<String>> columns) {
    if (plan instanceof StateStoreWriter writer
        && plan.children().size() == 1
        && !plan.nodeName().contains("Join")) {
      List<String> names = hashColumns(plan.children().head().outputPartitioning());
      if (names != null) columns.put(writer.getStateInfo().operatorId(), names);
    }
    scala.collection.Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) collect(children.next(), columns);
  }

  /** The column names of a hash partitioning of plain columns; else null. */
  private static List<String> hashColumns(Partitioning partitioning) {
    if (!(partitioning instanceof HashPartitioning hash)) return null;
    List<String> names = new ArrayList<>();
    scala.collection.Iterator<Expression> it = hash.expressions().iterator();
    while (it.hasNext()) {
      if (!(it.next() instanceof Attribute attribute)) return null;
      names.add(attribute.name());
    }
    return names;
  }
}
