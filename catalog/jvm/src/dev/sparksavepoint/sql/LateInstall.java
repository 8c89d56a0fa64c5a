package dev.sparksavepoint.sql;

import dev.sparksavepoint.commit.QueryRuns;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.analysis.Analyzer;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Gives a session that was started without {@code spark.sql.extensions=}{@link
 * SavepointExtensions} (a notebook's, a {@code spark-submit} job's) what those settings give a
 * new one: the table functions ({@code savepoint_metadata}, {@code savepoint_state},
 * {@code savepoint_list}), the analyzer rules of UPDATE, MERGE and key widening, and the query
 * listeners: the one that tells an edit this driver's query has stopped, and the one that records
 * a query's names for its value columns ({@link ValueNamesListener}).
 *
 * <p>Spark builds a session's analyzer once, from the extensions it had then; there is no API to
 * add a resolution rule later. The rules are appended to that analyzer's
 * {@code extendedResolutionRules} (the list {@code spark.sql.extensions} fills) by reflection.
 * Where that field is not there (another Spark build), everything else is still installed and
 * {@link #install} names what is missing. Sessions created later from this one
 * ({@code newSession}) get everything the regular way.
 */
public final class LateInstall {
  static final String RULES_FIELD = "extendedResolutionRules";

  private LateInstall() {}

  /**
   * Install what is missing into {@code spark}; idempotent.
   *
   * @return null when everything is in place, else one sentence naming what could not be
   *     installed (the analyzer rules)
   */
  public static String install(SparkSession spark) {
    if (hasRules(spark.sessionState().analyzer())) {
      addListeners(spark);
      return null;
    }
    SparkSessionExtensions ours = new SparkSessionExtensions();
    new SavepointExtensions().apply(ours);
    ours.registerTableFunctions(spark.sessionState().tableFunctionRegistry());
    new SavepointExtensions().apply(spark.extensions());
    addListeners(spark);
    try {
      appendRules(spark.sessionState().analyzer(), ours.buildResolutionRules(spark));
      return null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return "UPDATE, MERGE and writing a narrower whole number into a key column need the"
          + " session's SQL extensions, which this Spark build does not let us add to a running"
          + " session ("
          + e
          + ")";
    }
  }

  /** Whether the analyzer already has our rules (by the static setting or an earlier call). */
  static boolean hasRules(Analyzer analyzer) {
    for (Rule<LogicalPlan> rule : CollectionConverters.asJava(analyzer.extendedResolutionRules())) {
      if (rule instanceof RowLevelStateCommands) return true;
    }
    return false;
  }

  private static void appendRules(Analyzer analyzer, Seq<Rule<LogicalPlan>> rules)
      throws ReflectiveOperationException {
    Field field = rulesField(analyzer.getClass());
    field.setAccessible(true);
    List<Rule<LogicalPlan>> all =
        new ArrayList<>(CollectionConverters.asJava(analyzer.extendedResolutionRules()));
    all.addAll(CollectionConverters.asJava(rules));
    field.set(analyzer, CollectionConverters.asScala(all).toList());
  }

  private static Field rulesField(Class<?> type) throws NoSuchFieldException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        return c.getDeclaredField(RULES_FIELD);
      } catch (NoSuchFieldException e) {
        // declared by a superclass (the analyzer is an anonymous subclass)
      }
    }
    throw new NoSuchFieldException(type.getName() + "." + RULES_FIELD);
  }

  private static void addListeners(SparkSession spark) {
    List<Class<?>> present = new ArrayList<>();
    for (StreamingQueryListener l : spark.streams().listListeners()) present.add(l.getClass());
    if (!present.contains(QueryRuns.class)) spark.streams().addListener(new QueryRuns());
    if (!present.contains(ValueNamesListener.class)) {
      spark.streams().addListener(new ValueNamesListener());
    }
  }
}
