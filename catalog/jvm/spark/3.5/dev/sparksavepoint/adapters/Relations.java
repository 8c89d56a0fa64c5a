package dev.sparksavepoint.adapters;

import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.collection.immutable.Seq;

/** A table's relation in a plan, rebuilt: Spark 3.5 and 4.0 (no time travel in the relation). */
public final class Relations {
  private Relations() {}

  /** {@code relation} reading {@code table} with columns {@code output}, the rest kept. */
  public static DataSourceV2Relation withTable(
      DataSourceV2Relation relation, Table table, Seq<AttributeReference> output) {
    return relation.copy(
        table, output, relation.catalog(), relation.identifier(), relation.options());
  }
}
