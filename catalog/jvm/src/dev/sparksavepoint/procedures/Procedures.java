package dev.sparksavepoint.procedures;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * Every stored procedure of the catalog, in one table: {@code CALL <catalog>.system.<name>(...)}
 * on the checkpoint the catalog is attached to, or on the session (what its last edit did, dry
 * runs, transactions). The Python verbs call them too (in classic and Spark Connect sessions
 * alike), so an action has one door.
 *
 * <pre>
 *   CALL savepoint.system.take_savepoint('/savepoints/sp1' [, batch_id, uids, writable]);
 *   CALL savepoint.system.restore_savepoint('/ckpt/new' [, partitions, provider, uids, drop]);
 *   CALL savepoint.system.dispose_savepoint(['/savepoints/sp1']);
 *   CALL savepoint.system.create_savepoint('/ckpt/like');   -- the catalog's folder, empty
 *   CALL savepoint.system.recover([force]);
 *   CALL savepoint.system.list_files(['state']);            -- path, bytes, modified_ms
 *   CALL savepoint.system.verify();                         -- the doctor's findings
 *   CALL savepoint.system.relocate('hdfs://nn/ckpt' [, move, sink_paths, source_paths, force]);
 *   CALL savepoint.system.repair([dry_run, to_batch, force]);   -- then repair_undo([force])
 *   CALL savepoint.system.undo([batch_id, force, dry_run]); -- an edit's inverse, a new batch
 *   CALL savepoint.system.hygiene([batch_id, older_than, column, at_ms]);  -- evictable rows
 *   CALL savepoint.system.purge([evictable, ..., dry_run]); -- them deleted as one batch
 *   CALL savepoint.system.last_edit();                      -- this session's last edit
 *   CALL savepoint.system.last_dry_run();
 *   CALL savepoint.system.begin_transaction();              -- then SET the setting it returns
 *   CALL savepoint.system.transaction_plan(id);
 *   CALL savepoint.system.commit_transaction(id);           -- or rollback_transaction(id)
 * </pre>
 *
 * {@code uids} and {@code drop} are comma-separated ({@code '0=orders,agg_1=2'}).
 */
public final class Procedures {
  /** The namespace procedures live in: {@code <catalog>.system}. */
  public static final String NAMESPACE = "system";

  private static final Map<String, Function<Supplier<String>, ActionProcedure>> ALL =
      Map.ofEntries(
          Map.entry("take_savepoint", TakeSavepointProcedure::new),
          Map.entry("restore_savepoint", RestoreSavepointProcedure::new),
          Map.entry("dispose_savepoint", DisposeSavepointProcedure::new),
          Map.entry("create_savepoint", CreateSavepointProcedure::new),
          Map.entry("recover", RecoverProcedure::new),
          Map.entry("list_files", ListFilesProcedure::new),
          Map.entry("verify", VerifyProcedure::new),
          Map.entry("relocate", RelocateProcedure::new),
          Map.entry("repair", RepairProcedure::new),
          Map.entry("repair_undo", RepairUndoProcedure::new),
          Map.entry("undo", UndoProcedure::new),
          Map.entry("hygiene", HygieneProcedure::new),
          Map.entry("purge", PurgeProcedure::new),
          Map.entry("last_edit", LastEditProcedure::new),
          Map.entry("last_dry_run", LastDryRunProcedure::new),
          Map.entry("begin_transaction", BeginTransactionProcedure::new),
          Map.entry("transaction_plan", TransactionPlanProcedure::new),
          Map.entry("commit_transaction", CommitTransactionProcedure::new),
          Map.entry("rollback_transaction", RollbackTransactionProcedure::new));

  private Procedures() {}

  /** The procedure names, sorted. */
  public static List<String> names() {
    return ALL.keySet().stream().sorted().toList();
  }

  /** The procedure {@code name} on the checkpoint {@code checkpoint} supplies, or null. */
  public static UnboundProcedure load(String name, Supplier<String> checkpoint) {
    Function<Supplier<String>, ActionProcedure> make = ALL.get(name);
    return make == null ? null : make.apply(checkpoint);
  }
}
