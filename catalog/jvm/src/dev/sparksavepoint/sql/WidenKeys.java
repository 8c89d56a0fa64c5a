package dev.sparksavepoint.sql;

import dev.sparksavepoint.catalog.FlatStateTable;
import dev.sparksavepoint.write.IncomingColumns;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Alias$;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Cast$;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructField;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An analyzer rule: a write into a state table that gives a narrower whole number for a key
 * column ({@code 3}, an INT, for a BIGINT key) gets that column cast to the key's type before
 * the write sees it. The key decides the state partition (Spark hashes it by type), so the
 * write itself accepts only exact key types; widening in the plan keeps that rule and makes the
 * hash match. Lossy conversions are left alone and refused by {@link IncomingColumns}.
 */
public final class WidenKeys extends Rule<LogicalPlan> {
  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!(plan instanceof V2WriteCommand write)
        || !write.query().resolved()
        || !(write.table() instanceof DataSourceV2Relation relation)
        || !(relation.table() instanceof FlatStateTable table)) {
      return plan;
    }
    LogicalPlan query = write.query();
    int[] sources = IncomingColumns.sources(table.schema(), query.schema());
    if (sources == null) return plan;
    List<Attribute> output = new ArrayList<>(CollectionConverters.asJava(query.output()));
    List<NamedExpression> projected = new ArrayList<>(output);
    StructField[] data = table.schema().fields();
    boolean changed = false;
    for (int i = 0; i < data.length; i++) {
      Attribute given = output.get(sources[i]);
      DataType to = data[i].dataType();
      if (isKey(data[i]) && widens(given.dataType(), to)) {
        projected.set(sources[i], alias(given, to));
        changed = true;
      }
    }
    if (!changed) return plan;
    return (LogicalPlan)
        write.withNewQuery(new Project(CollectionConverters.asScala(projected).toList(), query));
  }

  private static boolean isKey(StructField column) {
    Option<String> comment = column.getComment();
    return comment.isDefined()
        && comment.get().startsWith("state ")
        && comment.get().endsWith("key field");
  }

  private static boolean widens(DataType from, DataType to) {
    return !from.equals(to)
        && from instanceof IntegralType
        && to instanceof IntegralType
        && Cast$.MODULE$.canUpCast(from, to);
  }

  private static Alias alias(Attribute given, DataType to) {
    Cast cast = new Cast(given, to, Option.apply(SQLConf.get().sessionLocalTimeZone()));
    return new Alias(
        cast,
        given.name(),
        Alias$.MODULE$.apply$default$3(cast, given.name()),
        Alias$.MODULE$.apply$default$4(cast, given.name()),
        Alias$.MODULE$.apply$default$5(cast, given.name()),
        Alias$.MODULE$.apply$default$6(cast, given.name()));
  }
}
