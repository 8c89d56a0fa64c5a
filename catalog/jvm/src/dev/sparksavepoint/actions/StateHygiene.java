package dev.sparksavepoint.actions;

import dev.sparksavepoint.errors.Errors;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.SparkSession;

/**
 * State hygiene: per state table, the rows Spark's next batch evicts under the watermark, the
 * values whose TTL has expired and that are not cleaned up yet, and the rows older than a given
 * event time; and purging them as one edit batch. SQL over the state tables (docs/
 * checkpoint-formats.md, "Eviction, TTL and purges"):
 *
 * <ul>
 *   <li><b>evictable</b>: aggregation and dropDuplicates rows with {@code event_time <=} the
 *       watermark the last batch set for the next ({@code metadata.event_time}, {@code
 *       query.batches.next_watermark_ms}); a join's eviction depends on its condition and is not
 *       counted;
 *   <li><b>expired</b>: transformWithState values with {@code ttlExpirationMs <= at};
 *   <li><b>older</b>: rows whose event time (or {@code column}) is before a given time.
 * </ul>
 *
 * State that only a watermark evicts (aggregation, dropDuplicates, join, session window) and
 * none of whose tables has an event-time column keeps every key: {@code never_evicted}.
 */
public final class StateHygiene {
  private StateHygiene() {}

  static final List<String> EVICTED_KINDS = List.of("aggregation", "dedup");
  static final List<String> AGES_KINDS =
      List.of("aggregation", "dedup", "join_side", "join_store", "session_window");

  /** A join's stores hold its sides' rows: counted and purged through the sides. */
  static final List<String> UNCOUNTED_KINDS = List.of("join_store");

  static final String TTL_COLUMN = "ttlExpirationMs";
  static final List<String> RULES = List.of("evictable", "expired", "older");

  /** What to count or purge by. */
  record Rules(long watermarkMs, long atMs, String olderThan, String column) {
    /** Per rule that applies to {@code table} (of {@code columns}): its SQL predicate. */
    Map<String, String> predicates(StateTables.Listed table, List<String> columns) {
      Map<String, String> rules = new LinkedHashMap<>();
      if (EVICTED_KINDS.contains(table.kind()) && table.eventTime() != null) {
        rules.put("evictable", table.eventTime() + " <= timestamp_millis(" + watermarkMs + ")");
      }
      if (columns.contains(TTL_COLUMN)) {
        rules.put("expired", CheckpointSql.quoted(TTL_COLUMN) + " <= " + atMs);
      }
      String time =
          table.eventTime() != null
              ? table.eventTime()
              : column != null && columns.contains(column) ? CheckpointSql.quoted(column) : null;
      if (olderThan != null && time != null) rules.put("older", time + " < " + olderThan);
      return rules;
    }
  }

  /**
   * The rules for {@code checkpoint} as of batch {@code batch}: its watermark for the next
   * batch, TTL as of {@code atMs}, rows older than {@code olderThan} (a time as text) by their
   * event time or {@code column}.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_BAD_ARGUMENTS for a time that is
   *     none, a column no state table has
   */
  static Rules rules(
      CheckpointSql sql,
      String checkpoint,
      long batch,
      String olderThan,
      String column,
      long atMs,
      List<StateTables.Listed> tables) {
    String older = olderThan == null ? null : timestampSql(olderThan, checkpoint);
    if (column != null && tables.stream().noneMatch(t -> columns(sql, t).contains(column))) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          "No state table of checkpoint '"
              + checkpoint
              + "' has a column '"
              + column
              + "': name a column of one (see <catalog>.metadata), or leave --column out to use"
              + " event-time columns.");
    }
    long watermark =
        sql.localRows("query.batches").stream()
            .filter(r -> r.getLong(r.fieldIndex("batch_id")) == batch)
            .filter(r -> !r.isNullAt(r.fieldIndex("next_watermark_ms")))
            .mapToLong(r -> r.getLong(r.fieldIndex("next_watermark_ms")))
            .findFirst()
            .orElse(0);
    return new Rules(watermark, atMs, older, column);
  }

  /**
   * A SQL timestamp for {@code text}: with an offset ({@code 2026-01-01T10:00:00+00:00}) its
   * instant, else a time in the session's time zone ({@code 2026-01-01 10:00:00}, a date).
   */
  static String timestampSql(String text, String checkpoint) {
    String t = text.strip().replace(' ', 'T');
    try {
      return "timestamp_millis(" + OffsetDateTime.parse(t).toInstant().toEpochMilli() + ")";
    } catch (DateTimeParseException e) {
      // no offset: a local time
    }
    DateTimeFormatter literal = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
    try {
      return "TIMESTAMP '" + LocalDateTime.parse(t).format(literal) + "'";
    } catch (DateTimeParseException e) {
      // a date alone?
    }
    try {
      return "TIMESTAMP '" + LocalDate.parse(t).atStartOfDay().format(literal) + "'";
    } catch (DateTimeParseException e) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          "'"
              + text
              + "' is no time: give one as 2026-01-01 10:00:00 (session time zone) or"
              + " 2026-01-01T10:00:00+00:00 (checkpoint '"
              + checkpoint
              + "').");
    }
  }

  /** The operators whose state only a watermark evicts and none of whose tables has one. */
  static Set<Long> neverEvicted(List<StateTables.Listed> tables) {
    Map<Long, Boolean> aged = new HashMap<>();
    for (StateTables.Listed t : tables) {
      if (AGES_KINDS.contains(t.kind())) {
        aged.merge(t.operatorId(), t.eventTime() != null, Boolean::logicalOr);
      }
    }
    Set<Long> never = new HashSet<>();
    aged.forEach(
        (op, evicted) -> {
          if (!evicted) never.add(op);
        });
    return never;
  }

  static List<String> columns(CheckpointSql sql, StateTables.Listed table) {
    return Arrays.asList(
        sql.sql("SELECT * FROM " + sql.table(table.uid(), table.state())).columns());
  }

  /**
   * Counts, per state table and partition, its rows and those each rule selects (a Spark job per
   * table), as of batch {@code batch} (-1: the last committed): rows of {@code table,
   * state_kind, event_time, never_evicted, partition_id, rows, evictable, expired, older,
   * purgeable} ({@code evictable, expired, older} null where the rule does not apply; one row
   * with a null partition for an empty table). Without {@code count}: one row per table, no
   * count (no Spark job).
   */
  public static List<Object[]> count(
      SparkSession spark,
      String checkpoint,
      long batch,
      String olderThan,
      String column,
      long atMs,
      boolean count) {
    try (CheckpointSql sql = CheckpointSql.attach(spark, checkpoint, "hygiene")) {
      String asOf = batch < 0 ? "" : " VERSION AS OF " + batch;
      List<StateTables.Listed> tables = StateTables.of(sql, asOf);
      long at = batch < 0 ? sql.lastCommitted() : batch;
      Rules rules = count ? rules(sql, checkpoint, at, olderThan, column, atMs, tables) : null;
      Set<Long> never = neverEvicted(tables);
      List<Object[]> out = new ArrayList<>();
      for (StateTables.Listed t : tables) {
        if (UNCOUNTED_KINDS.contains(t.kind())) continue;
        boolean flagged = never.contains(t.operatorId());
        if (!count) {
          out.add(Arrays.copyOf(new Object[] {t.name(), t.kind(), t.eventTime(), flagged}, 10));
          continue;
        }
        Map<String, String> predicates = rules.predicates(t, columns(sql, t));
        List<Row> counted =
            sql.rows(
                "SELECT partition_id, count(*), "
                    + countsSql(predicates)
                    + " FROM "
                    + sql.table(t.uid(), t.state())
                    + asOf
                    + " GROUP BY partition_id");
        if (counted.isEmpty()) {
          out.add(row(t, flagged, null, 0, predicates, null));
        }
        for (Row r : counted) {
          out.add(row(t, flagged, r.isNullAt(0) ? null : r.getInt(0), r.getLong(1), predicates, r));
        }
      }
      return out;
    }
  }

  /** What a purge did: its DELETE statements and their transaction (null: none ran). */
  public record Purge(List<String> statements, CheckpointSql.Outcome outcome) {}

  /**
   * Deletes, as one edit batch of {@code checkpoint}, the rows the rules select: {@code
   * evictable} dropDuplicates rows (with {@code aggregations} aggregation rows too: only right in
   * update mode, since in append mode the next batch emits evicted groups as final results),
   * {@code expired} TTL values, rows older than {@code olderThan}; only the tables {@code tables}
   * ({@code uid.state}; empty: all). Where it purges evictable rows, the batch runs the
   * watermark as a Spark no-data batch does ({@link CheckpointSql#transaction}'s {@code evicts}).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_BAD_ARGUMENTS: no rule, an unknown
   *     table or column, a bad time
   */
  public static Purge purge(
      SparkSession spark,
      String checkpoint,
      boolean evictable,
      boolean aggregations,
      boolean expired,
      String olderThan,
      String column,
      List<String> tables,
      boolean dryRun,
      long atMs) {
    if (!evictable && !expired && olderThan == null) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          "Nothing to purge in '"
              + checkpoint
              + "' by: keep evictable or expired rows in, or give a time older rows are purged"
              + " before (--older-than).");
    }
    try (CheckpointSql sql = CheckpointSql.attach(spark, checkpoint, "purge")) {
      List<StateTables.Listed> listed =
          StateTables.of(sql).stream().filter(t -> !UNCOUNTED_KINDS.contains(t.kind())).toList();
      List<StateTables.Listed> chosen = chosen(listed, tables, checkpoint);
      Rules rules = rules(sql, checkpoint, sql.lastCommitted(), olderThan, column, atMs, listed);
      List<String> statements = new ArrayList<>();
      boolean evicts = false;
      for (StateTables.Listed t : chosen) {
        Map<String, String> predicates = rules.predicates(t, columns(sql, t));
        if (!evictable || (!aggregations && t.kind().equals("aggregation"))) {
          predicates.remove("evictable");
        }
        if (!expired) predicates.remove("expired");
        if (predicates.isEmpty()) continue;
        evicts |= predicates.containsKey("evictable");
        statements.add(
            "DELETE FROM " + sql.table(t.uid(), t.state()) + " WHERE " + any(predicates));
      }
      CheckpointSql.Outcome outcome =
          statements.isEmpty() ? null : sql.transaction(statements, dryRun, evicts);
      return new Purge(statements, outcome);
    }
  }

  private static List<StateTables.Listed> chosen(
      List<StateTables.Listed> listed, List<String> tables, String checkpoint) {
    if (tables.isEmpty()) return listed;
    Map<String, StateTables.Listed> byName = new LinkedHashMap<>();
    for (StateTables.Listed t : listed) byName.put(t.name(), t);
    List<String> unknown = tables.stream().filter(t -> !byName.containsKey(t)).toList();
    if (!unknown.isEmpty()) {
      throw Errors.analysis(
          "SAVEPOINT_BAD_ARGUMENTS",
          "Checkpoint '"
              + checkpoint
              + "' has no state table "
              + String.join(", ", unknown)
              + ": name them as uid.state ("
              + String.join(", ", byName.keySet().stream().sorted().toList())
              + ").");
    }
    return tables.stream().map(byName::get).toList();
  }

  private static Object[] row(
      StateTables.Listed t,
      boolean never,
      Integer partition,
      long rows,
      Map<String, String> predicates,
      Row counted) {
    Object[] row = new Object[10];
    row[0] = t.name();
    row[1] = t.kind();
    row[2] = t.eventTime();
    row[3] = never;
    row[4] = partition;
    row[5] = rows;
    int column = 2;
    for (int i = 0; i < RULES.size(); i++) {
      String rule = RULES.get(i);
      if (predicates.containsKey(rule)) {
        row[6 + i] = counted == null ? 0L : counted.getLong(column++);
      }
    }
    row[9] = counted == null ? 0L : counted.getLong(column);
    return row;
  }

  /** {@code count_if} columns for {@code predicates}, in {@link #RULES} order, then any. */
  static String countsSql(Map<String, String> predicates) {
    List<String> parts = new ArrayList<>();
    for (String rule : RULES) {
      if (predicates.containsKey(rule)) parts.add("count_if(" + predicates.get(rule) + ")");
    }
    parts.add("count_if(" + any(predicates) + ")");
    return String.join(", ", parts);
  }

  static String any(Map<String, String> predicates) {
    if (predicates.isEmpty()) return "false";
    return String.join(" OR ", predicates.values().stream().map(p -> "(" + p + ")").toList());
  }
}
