package dev.sparksavepoint.procedures;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.actions.TakeSavepoint;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.take_savepoint(target [, batch_id, uids, writable,
 * count_rows])}: a savepoint of the catalog's checkpoint ({@link TakeSavepoint}). One row: where
 * it went, its batch, what it holds (rows null when not counted), and the whole manifest
 * ({@code _savepoint.json}) as JSON.
 */
final class TakeSavepointProcedure extends ActionProcedure {
  private static final ObjectMapper JSON = new ObjectMapper();

  TakeSavepointProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "take_savepoint",
        "Takes a savepoint of the checkpoint into a new folder; returns its manifest.",
        "path string, batch_id bigint, writable boolean, operators int, rows bigint,"
            + " state_bytes bigint, manifest string",
        in("target", DataTypes.StringType, null),
        in("batch_id", DataTypes.LongType, "-1"),
        in("uids", DataTypes.StringType, "''"),
        in("writable", DataTypes.BooleanType, "false"),
        in("count_rows", DataTypes.BooleanType, "false"));
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String checkpoint = checkpoint();
    String target = string(args, 0);
    String manifest =
        TakeSavepoint.run(
            spark,
            checkpoint,
            target,
            args.getLong(1),
            list(string(args, 2)),
            args.getBoolean(3),
            args.getBoolean(4));
    JsonNode m;
    try {
      m = JSON.readTree(manifest);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the manifest just written does not parse", e);
    }
    return List.<Object[]>of(
        new Object[] {
          target,
          m.path("batch_id").asLong(),
          m.path("writable").asBoolean(),
          m.path("operators").size(),
          m.path("rows").isNumber() ? m.path("rows").asLong() : null,
          m.path("state_bytes").asLong(),
          manifest
        });
  }
}
