package dev.sparksavepoint.actions;

import java.util.List;

/** The state tables of a checkpoint: its {@code metadata} rows of operators (not of the logs). */
final class StateTables {
  private StateTables() {}

  /** One state table: its operator, uid, state, kind and watermark column (or null). */
  record Listed(long operatorId, String uid, String state, String kind, String eventTime) {
    /** {@code uid.state}. */
    String name() {
      return uid + "." + state;
    }
  }

  static List<Listed> of(CheckpointSql sql) {
    return of(sql, "");
  }

  /** The state tables as of {@code asOf} ({@code " VERSION AS OF 3"}, or "" for the last). */
  static List<Listed> of(CheckpointSql sql, String asOf) {
    return sql.localRows("metadata" + asOf).stream()
        .filter(r -> !r.isNullAt(r.fieldIndex("operator_id")))
        .map(
            r ->
                new Listed(
                    r.getLong(r.fieldIndex("operator_id")),
                    r.getString(r.fieldIndex("uid")),
                    r.getString(r.fieldIndex("state")),
                    r.getString(r.fieldIndex("state_kind")),
                    r.getString(r.fieldIndex("event_time"))))
        .toList();
  }
}
