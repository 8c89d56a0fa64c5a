package dev.sparksavepoint.upgrade;

import dev.sparksavepoint.checkpoint.ValueNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.streaming.operators.stateful.StateStoreWriter;

/**
 * The query's own names for a streaming aggregation's state value columns: an aggregation
 * keeps Spark's buffer names ({@code count}, {@code sum}), the query names its results
 * ({@code count(*) AS cnt}). A function with one buffer gives its buffer the result's name, one
 * with several {@code <name>_<buffer>} ({@code avg(x) AS a}: {@code a_sum}, {@code a_count}); a
 * result the query did not name (Spark's generated {@code count(1)}) keeps the buffer's name.
 * Found on the aggregate that finishes the results, just above the operator's state save, in
 * the executed plan of a planned query ({@link PlannedQuery}) or of a running one's batch.
 */
public final class QueryNames {
  /** Metadata key of the aliases Spark generates for results the query did not name. */
  private static final String AUTO_GENERATED_ALIAS =
      org.apache.spark.sql.catalyst.util.package$.MODULE$.AUTO_GENERATED_ALIAS();

  private QueryNames() {}

  /** Operator id to the new names of its value columns, in order (null: keep the name). */
  public static Map<Long, List<String>> valueNames(PlannedQuery planned) {
    Map<Long, List<String>> names = new HashMap<>();
    of(planned.executed()).forEach((id, columns) -> names.put(id, columns.names()));
    return names;
  }

  /** Operator id to the value columns of each streaming aggregation of {@code executed}. */
  public static Map<Long, ValueNames.Columns> of(SparkPlan executed) {
    Map<Long, ValueNames.Columns> columns = new HashMap<>();
    collect(executed, columns);
    return columns;
  }

  private static void collect(SparkPlan plan, Map<Long, ValueNames.Columns> columns) {
    if (plan instanceof BaseAggregateExec aggregate
        && unwrapped(aggregate.child()) instanceof StateStoreWriter save
        && unwrapped(aggregate.child()).nodeName().startsWith("StateStoreSave")) {
      columns.put(save.getStateInfo().operatorId(), columns(aggregate));
    }
    scala.collection.Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) collect(children.next(), columns);
  }

  /** {@code plan} without the code generation wrappers around it. */
  private static SparkPlan unwrapped(SparkPlan plan) {
    while (plan instanceof InputAdapter || plan instanceof WholeStageCodegenExec) {
      plan = plan.children().head();
    }
    return plan;
  }

  private static ValueNames.Columns columns(BaseAggregateExec aggregate) {
    Map<Long, String> aliases = new HashMap<>();
    scala.collection.Iterator<NamedExpression> results = aggregate.resultExpressions().iterator();
    while (results.hasNext()) {
      NamedExpression result = results.next();
      if (result instanceof Alias alias
          && alias.child() instanceof Attribute attribute
          && !alias.metadata().contains(AUTO_GENERATED_ALIAS)) {
        aliases.put(attribute.exprId().id(), alias.name());
      }
    }
    List<String> buffers = new ArrayList<>();
    List<String> names = new ArrayList<>();
    scala.collection.Iterator<AggregateExpression> expressions =
        aggregate.aggregateExpressions().iterator();
    while (expressions.hasNext()) {
      AggregateExpression expression = expressions.next();
      String name = aliases.get(expression.resultAttribute().exprId().id());
      scala.collection.Iterator<org.apache.spark.sql.catalyst.expressions.AttributeReference>
          bufferAttributes = expression.aggregateFunction().aggBufferAttributes().iterator();
      int count = expression.aggregateFunction().aggBufferAttributes().size();
      while (bufferAttributes.hasNext()) {
        String buffer = bufferAttributes.next().name();
        buffers.add(buffer);
        names.add(name == null ? null : count == 1 ? name : name + "_" + buffer);
      }
    }
    return new ValueNames.Columns(buffers, names);
  }
}
