package dev.sparksavepoint.actions;

import java.util.List;
import org.apache.spark.sql.Row;

/** The state tables of a checkpoint: its {@code metadata} rows of operators (not of the logs). */
final class StateTables {
  private StateTables() {}

  /** One state table: its operator uid, state, kind and watermark column. */
  record Listed(String uid, String state, String kind, String eventTime) {}

  static List<Listed> of(CheckpointSql sql) {
    List<Row> rows =
        sql.rows(
            "SELECT uid, state, state_kind, event_time FROM "
                + sql.catalog()
                + ".metadata WHERE operator_id IS NOT NULL");
    return rows.stream()
        .map(r -> new Listed(r.getString(0), r.getString(1), r.getString(2), r.getString(3)))
        .toList();
  }
}
