package dev.sparksavepoint.commit;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.spark.sql.classic.SparkSession;

/**
 * What the last write of each session did: its {@link EditReport} and, for a dry run, its
 * {@link DryRunReport}. Kept per SparkSession (a session's writes run in the driver with that
 * session active), so that two notebooks, two Thrift sessions or two Spark Connect clients of
 * one driver each see their own; weakly, so a session that is gone takes its reports along.
 * Read back by the procedures {@code CALL <catalog>.system.last_edit()} and
 * {@code last_dry_run()}.
 */
public final class SessionReports {
  private static final Map<SparkSession, SessionReports> BY_SESSION =
      Collections.synchronizedMap(new WeakHashMap<>());

  private volatile EditReport edit;
  private volatile DryRunReport dryRun;

  private SessionReports() {}

  /** The reports of {@code spark}. */
  public static SessionReports of(SparkSession spark) {
    return BY_SESSION.computeIfAbsent(spark, s -> new SessionReports());
  }

  /** The reports of the active session (the one whose statement is running). */
  static SessionReports active() {
    return of(SparkSession.active());
  }

  /** The report of the session's last edit, or null before the first. */
  public EditReport edit() {
    return edit;
  }

  /** The report of the session's last dry run, or null before the first. */
  public DryRunReport dryRun() {
    return dryRun;
  }

  void keep(EditReport report) {
    edit = report;
  }

  void keep(DryRunReport report) {
    dryRun = report;
  }

  /** Forgets the last dry run: a write starts, and the next report is of it. */
  public void forgetDryRun() {
    dryRun = null;
  }
}
