package dev.sparksavepoint.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.actions.TakeSavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.take_savepoint(target [, batch_id, uids, writable])}: a savepoint
 * of the catalog's checkpoint ({@link TakeSavepoint}). One row: where it went, its batch, what
 * it holds, and the whole manifest ({@code _savepoint.json}) as JSON.
 */
final class TakeSavepointProcedure extends ActionProcedure {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final StructType OUTPUT = StructType.fromDDL("path string, batch_id bigint,"
      + " writable boolean, operators int, rows bigint, state_bytes bigint, manifest string");

  TakeSavepointProcedure(Supplier<String> checkpoint) {
    super(checkpoint);
  }

  @Override
  public String name() {
    return "take_savepoint";
  }

  @Override
  public String description() {
    return "Takes a savepoint of the checkpoint into a new folder; returns its manifest.";
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {in("target", DataTypes.StringType, null),
        in("batch_id", DataTypes.LongType, "-1"), in("uids", DataTypes.StringType, "''"),
        in("writable", DataTypes.BooleanType, "false")};
  }

  @Override
  StructType output() {
    return OUTPUT;
  }

  @Override
  List<Object[]> run(SparkSession spark, String checkpoint, InternalRow args) {
    String target = string(args, 0);
    String manifest = TakeSavepoint.run(spark, checkpoint, target, args.getLong(1),
        list(string(args, 2)), args.getBoolean(3));
    JsonNode m;
    try {
      m = JSON.readTree(manifest);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the manifest just written does not parse", e);
    }
    return List.<Object[]>of(new Object[] {target, m.path("batch_id").asLong(),
        m.path("writable").asBoolean(), m.path("operators").size(), m.path("rows").asLong(),
        m.path("state_bytes").asLong(), manifest});
  }
}
