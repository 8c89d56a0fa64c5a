package dev.sparksavepoint.upgrade;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;

/**
 * The aggregation buffers a planned streaming aggregation keeps in its state, in state column
 * order, with the value each starts from: Spark's own {@code initialValues} of the aggregate
 * function (0 for {@code count}, NULL for {@code max} and {@code sum}), as SQL literals. A
 * buffer whose start value is not a constant (an imperative aggregate such as
 * {@code collect_list}) has none (null).
 */
public final class AggregateBuffers {
  private AggregateBuffers() {}

  /** A buffer's start value is not a constant (see {@link #startValues}). */
  public static final Object NO_CONSTANT = new Object();

  /**
   * The start values of the buffers below {@code stateStoreSave}, in Spark's internal
   * representation ({@link #NO_CONSTANT} where there is none), or null if no aggregation is
   * found.
   */
  public static List<Object> startValues(SparkPlan stateStoreSave) {
    List<Expression> initial = initialExpressions(stateStoreSave);
    if (initial == null) return null;
    List<Object> values = new ArrayList<>();
    for (Expression e : initial) {
      values.add(e != null && e.foldable() ? e.eval(null) : NO_CONSTANT);
    }
    return values;
  }

  /** The start values of the buffers below {@code stateStoreSave}, or null if none is found. */
  public static List<String> initialValues(SparkPlan stateStoreSave) {
    List<Expression> initial = initialExpressions(stateStoreSave);
    if (initial == null) return null;
    List<String> values = new ArrayList<>();
    for (Expression e : initial) values.add(e == null ? null : literal(e));
    return values;
  }

  /** Each buffer's initial value expression (null for an imperative aggregate's buffers). */
  private static List<Expression> initialExpressions(SparkPlan stateStoreSave) {
    BaseAggregateExec aggregate = find(stateStoreSave);
    if (aggregate == null) return null;
    List<Expression> values = new ArrayList<>();
    scala.collection.Iterator<AggregateExpression> expressions =
        aggregate.aggregateExpressions().iterator();
    while (expressions.hasNext()) {
      AggregateFunction function = expressions.next().aggregateFunction();
      if (function instanceof DeclarativeAggregate declarative) {
        scala.collection.Iterator<Expression> initial = declarative.initialValues().iterator();
        while (initial.hasNext()) values.add(initial.next());
      } else {
        for (int i = 0; i < function.aggBufferAttributes().size(); i++) values.add(null);
      }
    }
    return values;
  }

  private static String literal(Expression expression) {
    if (!expression.foldable()) return null;
    Object value = expression.eval(null);
    return value == null ? "NULL" : Literal.create(value, expression.dataType()).toString();
  }

  private static BaseAggregateExec find(SparkPlan plan) {
    scala.collection.Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      SparkPlan child = children.next();
      if (child instanceof BaseAggregateExec aggregate) return aggregate;
      BaseAggregateExec below = find(child);
      if (below != null) return below;
    }
    return null;
  }
}
