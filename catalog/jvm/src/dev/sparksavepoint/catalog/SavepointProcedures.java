package dev.sparksavepoint.catalog;

import dev.sparksavepoint.actions.CopyChanges;
import dev.sparksavepoint.actions.DisposeSavepoint;
import dev.sparksavepoint.actions.RestoreSavepoint;
import dev.sparksavepoint.actions.TakeSavepoint;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The catalog's stored procedures, {@code CALL <catalog>.system.<name>(...)}, on the checkpoint
 * the catalog is attached to (registered here, one entry each):
 *
 * <pre>
 *   CALL savepoint.system.take_savepoint('/savepoints/sp1' [, batch_id, uids, writable]);
 *   CALL savepoint.system.restore_savepoint('/ckpt/new' [, partitions, provider, uids, drop]);
 *   CALL savepoint.system.dispose_savepoint('/savepoints/sp1');
 * </pre>
 *
 * {@code uids} and {@code drop} are comma-separated ({@code '0=orders,agg_1=2'}). Each returns
 * one row: {@code message}. Read-only servers refuse CALL; {@code savepoint_list('DIR')} lists.
 */
final class SavepointProcedures {
  static final String NAMESPACE = "system";
  private static final StructType RESULT = new StructType().add("message", DataTypes.StringType);

  /** What a procedure does: (the catalog's checkpoint, the bound arguments) -> message. */
  private record Action(String description, ProcedureParameter[] parameters,
      BiFunction<String, InternalRow, String> run) {}

  private static final Map<String, Action> ACTIONS = Map.of(
      "take_savepoint", new Action(
          "Takes a savepoint of the checkpoint into a new folder; returns its manifest.",
          params(in("target", DataTypes.StringType, null), in("batch_id", DataTypes.LongType, "-1"),
              in("uids", DataTypes.StringType, "''"),
              in("writable", DataTypes.BooleanType, "false")),
          (ckpt, args) -> TakeSavepoint.run(active(), ckpt, string(args, 0), args.getLong(1),
              list(string(args, 2)), args.getBoolean(3))),
      "restore_savepoint", new Action(
          "Restores the checkpoint or savepoint into a new checkpoint folder.",
          params(in("target", DataTypes.StringType, null),
              in("partitions", DataTypes.IntegerType, "0"),
              in("provider", DataTypes.StringType, "''"), in("uids", DataTypes.StringType, "''"),
              in("drop", DataTypes.StringType, "''")),
          (ckpt, args) -> RestoreSavepoint.run(active(), ckpt, string(args, 0), CopyChanges.of(
              args.getInt(1), string(args, 2), list(string(args, 3)), list(string(args, 4))))),
      "dispose_savepoint", new Action(
          "Removes a savepoint: exactly the files its manifest lists.",
          params(in("path", DataTypes.StringType, null)),
          (ckpt, args) -> DisposeSavepoint.run(string(args, 0),
              active().sessionState().newHadoopConf())));

  private SavepointProcedures() {}

  static List<String> names() {
    return ACTIONS.keySet().stream().sorted().toList();
  }

  /** The procedure {@code name} on the checkpoint {@code checkpoint}, or null. */
  static UnboundProcedure load(String name, java.util.function.Supplier<String> checkpoint) {
    Action action = ACTIONS.get(name);
    return action == null ? null : new Procedure(name, action, checkpoint);
  }

  private static ProcedureParameter[] params(ProcedureParameter... parameters) {
    return parameters;
  }

  private static ProcedureParameter in(String name, DataType type, String defaultSql) {
    ProcedureParameter.Builder builder = ProcedureParameter.in(name, type);
    if (defaultSql != null) builder = builder.defaultValue(defaultSql);
    return builder.build();
  }

  private static SparkSession active() {
    return SparkSession.active();
  }

  private static String string(InternalRow args, int i) {
    return args.isNullAt(i) ? null : args.getUTF8String(i).toString();
  }

  private static List<String> list(String items) {
    if (items == null || items.isBlank()) return List.of();
    return Arrays.stream(items.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /** One procedure, unbound and bound alike (its parameters do not depend on the call). */
  private record Procedure(String name, Action action,
      java.util.function.Supplier<String> checkpoint) implements UnboundProcedure, BoundProcedure {
    @Override
    public String description() {
      return action.description();
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
      return this;
    }

    @Override
    public ProcedureParameter[] parameters() {
      return action.parameters();
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow input) {
      ReadOnlyMode.refuseIfReadOnly(active(), "CALL " + name);
      String message = action.run().apply(checkpoint.get(), input);
      InternalRow row = InternalRow.fromSeq(scala.jdk.javaapi.CollectionConverters.asScala(
          List.<Object>of(UTF8String.fromString(message))).toSeq());
      return List.<Scan>of(new Result(row)).iterator();
    }
  }

  private record Result(InternalRow row) implements LocalScan {
    @Override
    public InternalRow[] rows() {
      return new InternalRow[] {row};
    }

    @Override
    public StructType readSchema() {
      return RESULT;
    }
  }
}
