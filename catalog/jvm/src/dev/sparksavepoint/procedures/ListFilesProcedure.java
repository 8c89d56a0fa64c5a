package dev.sparksavepoint.procedures;

import dev.sparksavepoint.checkpoint.FileListing;
import java.util.List;
import java.util.function.Supplier;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL <catalog>.system.list_files([under])}: every file under the catalog's folder (or
 * its sub-folder {@code under}, e.g. {@code 'state'}), one row each, sorted: its path relative
 * to that folder, bytes and modification time in ms ({@link FileListing}). What {@code inspect}
 * reads the state's layout from, in one call, from any session.
 */
final class ListFilesProcedure extends ActionProcedure {

  ListFilesProcedure(Supplier<String> checkpoint) {
    super(
        checkpoint,
        "list_files",
        "Every file under the checkpoint (or one of its folders): path, bytes, modified_ms.",
        "path string, bytes bigint, modified_ms bigint",
        in("under", DataTypes.StringType, "''"));
    changesNoFile();
  }

  @Override
  List<Object[]> run(SparkSession spark, InternalRow args) {
    String under = string(args, 0);
    String folder =
        under == null || under.isEmpty() ? checkpoint() : new Path(checkpoint(), under).toString();
    return FileListing.files(folder, spark.sessionState().newHadoopConf()).stream()
        .map(f -> new Object[] {f.path(), f.bytes(), f.modifiedMs()})
        .toList();
  }
}
