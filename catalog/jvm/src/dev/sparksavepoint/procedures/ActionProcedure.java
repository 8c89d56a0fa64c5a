package dev.sparksavepoint.procedures;

import dev.sparksavepoint.commit.ReadOnlyMode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One stored procedure, {@code CALL <catalog>.system.<name>(...)}: its parameters, its typed
 * result rows, and the action it runs, on the checkpoint the catalog is attached to
 * ({@link #checkpoint()}) or, for the procedures of the session (the last edit, dry runs,
 * transactions), on none. Unbound and bound alike (its parameters do not depend on the call). A procedure that changes anything is
 * refused in a read-only application ({@link ReadOnlyMode}): Spark runs procedures while it
 * analyzes the statement, before any check rule sees it.
 */
abstract class ActionProcedure implements UnboundProcedure, BoundProcedure {
  /** Output types by their DDL: parsed once (a procedure is built for every call). */
  private static final Map<String, StructType> OUTPUTS = new ConcurrentHashMap<>();

  private final Supplier<String> checkpoint;
  private final String name;
  private final String description;
  private final StructType output;
  private final ProcedureParameter[] parameters;
  private boolean writes = true;

  /**
   * Procedure {@code name} on the folder {@code checkpoint} supplies, returning rows of
   * {@code output} (DDL, e.g. {@code "target string, message string"}).
   */
  ActionProcedure(
      Supplier<String> checkpoint,
      String name,
      String description,
      String output,
      ProcedureParameter... parameters) {
    this.checkpoint = checkpoint;
    this.name = name;
    this.description = description;
    this.output = OUTPUTS.computeIfAbsent(output, StructType::fromDDL);
    this.parameters = parameters;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return parameters;
  }

  /** True when it changes files (refused on a read-only server). */
  boolean writes() {
    return writes;
  }

  /** Declares that the procedure changes no file: a read-only server runs it too. */
  final void changesNoFile() {
    writes = false;
  }

  /** Runs the action with the bound arguments; its result rows. */
  abstract List<Object[]> run(SparkSession spark, InternalRow args);

  /**
   * The folder the catalog is attached to (not opened).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_PATH_NOT_SET
   */
  String checkpoint() {
    return checkpoint.get();
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this;
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  @Override
  public Iterator<Scan> call(InternalRow input) {
    InternalRow[] rows =
        callWith(SparkSession.active(), input).stream()
            .map(ActionProcedure::internal)
            .toArray(InternalRow[]::new);
    return List.<Scan>of(new Result(rows, output)).iterator();
  }

  /** Runs the procedure on {@code input} in {@code spark} (refused when read-only): its rows. */
  final List<Object[]> callWith(SparkSession spark, InternalRow input) {
    if (writes()) ReadOnlyMode.refuseIfReadOnly(spark, "CALL " + name());
    return run(spark, input);
  }

  /** The columns of its rows. */
  final StructType outputType() {
    return output;
  }

  static ProcedureParameter in(String name, DataType type, String defaultSql) {
    ProcedureParameter.Builder builder = ProcedureParameter.in(name, type);
    if (defaultSql != null) builder = builder.defaultValue(defaultSql);
    return builder.build();
  }

  static String string(InternalRow args, int i) {
    return args.isNullAt(i) ? null : args.getUTF8String(i).toString();
  }

  /** A comma-separated argument ({@code '0=orders,agg_1=2'}) as its items. */
  static List<String> list(String items) {
    if (items == null || items.isBlank()) return List.of();
    return java.util.Arrays.stream(items.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  /**
   * A row of Java values (String, Long, Integer, Boolean, null, and lists of them) as Spark's
   * internal row.
   */
  private static InternalRow internal(Object[] values) {
    Object[] converted = new Object[values.length];
    for (int i = 0; i < values.length; i++) converted[i] = internal(values[i]);
    return InternalRow.fromSeq(
        CollectionConverters.asScala(java.util.Arrays.asList(converted)).toSeq());
  }

  private static Object internal(Object value) {
    if (value instanceof String s) return UTF8String.fromString(s);
    if (value instanceof List<?> items) {
      return new GenericArrayData(items.stream().map(ActionProcedure::internal).toArray());
    }
    return value;
  }

  private record Result(InternalRow[] rows, StructType readSchema) implements LocalScan {}
}
