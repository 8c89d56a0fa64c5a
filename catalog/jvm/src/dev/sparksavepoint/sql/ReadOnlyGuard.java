package dev.sparksavepoint.sql;

import dev.sparksavepoint.commit.ReadOnlyMode;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.Command;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.command.SetCommand;
import scala.Function1;
import scala.Option;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * A read-only mode for servers ({@code spark-savepoint thriftserver} and {@code connect}, the
 * default of both): with {@code spark.sql.extensions=dev.sparksavepoint.sql.ReadOnlyGuard} and
 * {@code spark.savepoint.readOnly=true} in the application's conf (fixed at start: a client's
 * {@code SET} cannot change it), every statement that writes or changes anything is refused at
 * analysis, in every catalog: INSERT/DELETE/UPDATE/MERGE, CALL (the project's procedures check
 * {@code catalog.ReadOnlyMode} themselves: Spark runs them during analysis), CREATE/DROP/ALTER of
 * tables, views, functions and namespaces, ADD JAR, CACHE, and {@code SET} of
 * {@code spark.sql.catalog.*}, {@code spark.savepoint.*} or {@code spark.sql.extensions}. Queries,
 * SHOW, DESCRIBE, EXPLAIN, USE and other SET/RESET are allowed.
 *
 * <p>Sessions exempted ({@code ReadOnlyMode.exempt}: the tool's own, which keep the views in
 * sync) are not checked.
 */
public final class ReadOnlyGuard extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  /** Commands that only read: matched by class name so Spark's internal classes stay unlinked. */
  private static final Set<String> READ_COMMANDS =
      Set.of(
          "ShowNamespaces",
          "ShowNamespacesCommand",
          "ShowTables",
          "ShowTablesCommand",
          "ShowTableExtended",
          "ShowTablesExtended",
          "ShowViews",
          "ShowViewsCommand",
          "ShowFunctions",
          "ShowFunctionsCommand",
          "ShowColumns",
          "ShowColumnsCommand",
          "ShowTableProperties",
          "ShowTablePropertiesCommand",
          "ShowCreateTable",
          "ShowCreateTableCommand",
          "ShowCreateTableAsSerdeCommand",
          "ShowPartitions",
          "ShowPartitionsCommand",
          "ShowCatalogsCommand",
          "ShowCurrentNamespace",
          "ShowCurrentNamespaceCommand",
          "SetCatalogAndNamespace",
          "SetNamespaceCommand",
          "SetCatalogCommand",
          "DescribeNamespace",
          "DescribeRelation",
          "DescribeColumn",
          "DescribeFunction",
          "DescribeTableCommand",
          "DescribeColumnCommand",
          "DescribeDatabaseCommand",
          "DescribeFunctionCommand",
          "DescribeQueryCommand",
          "ExplainCommand",
          "SetCommand",
          "ResetCommand");

  private static final String[] PROTECTED_KEYS = {
    "spark.sql.catalog.", "spark.savepoint.", "spark.sql.extensions"
  };

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectCheckRule(
        new AbstractFunction1<SparkSession, Function1<LogicalPlan, BoxedUnit>>() {
          @Override
          public Function1<LogicalPlan, BoxedUnit> apply(SparkSession session) {
            return new Check(session);
          }
        });
    return BoxedUnit.UNIT;
  }

  /** The check rule of one session. */
  private static final class Check extends AbstractFunction1<LogicalPlan, BoxedUnit> {
    private final SparkSession session;

    Check(SparkSession session) {
      this.session = session;
    }

    @Override
    public BoxedUnit apply(LogicalPlan plan) {
      if (ReadOnlyMode.guarded(session)) refuseWrites(plan);
      return BoxedUnit.UNIT;
    }
  }

  private static void refuseWrites(LogicalPlan plan) {
    if (plan instanceof Command) {
      String command = plan.getClass().getSimpleName();
      if (!READ_COMMANDS.contains(command)) throw ReadOnlyMode.refused(command);
      if (plan instanceof SetCommand set) checkSet(set);
    }
    for (LogicalPlan child : CollectionConverters.asJava(plan.children())) refuseWrites(child);
  }

  private static void checkSet(SetCommand set) {
    Option<Tuple2<String, Option<String>>> kv = set.kv();
    if (kv.isEmpty() || kv.get()._2().isEmpty()) return;
    String key = kv.get()._1();
    for (String prefix : PROTECTED_KEYS) {
      if (key.startsWith(prefix)) throw ReadOnlyMode.refused("SET " + key);
    }
  }
}
