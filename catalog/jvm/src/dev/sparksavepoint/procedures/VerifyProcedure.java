package dev.sparksavepoint.procedures;

import dev.sparksavepoint.doctor.Doctor;
import dev.sparksavepoint.doctor.Finding;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code CALL <catalog>.system.verify()}: what is wrong with the catalog's checkpoint
 * ({@link Doctor}), one row per finding, most severe first; no rows when it is healthy. Reads,
 * never writes: a read-only server runs it too.
 */
final class VerifyProcedure extends ActionProcedure {

  VerifyProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "verify",
        "What is wrong with the checkpoint: one row per finding (none when healthy).",
        "class string, severity string, batch_id bigint, operator_id bigint, partition_id int,"
            + " file string, message string, fix string");
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    return Doctor.verify(spark, checkpoint()).stream().map(VerifyProcedure::row).toList();
  }

  private static Object[] row(Finding f) {
    return new Object[] {
      f.check().name(),
      f.severity().name().toLowerCase(java.util.Locale.ROOT),
      f.batchId(),
      f.operatorId(),
      f.partition(),
      f.file(),
      f.message(),
      f.fix()
    };
  }
}
