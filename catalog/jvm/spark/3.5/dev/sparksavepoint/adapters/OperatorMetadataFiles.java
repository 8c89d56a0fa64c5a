package dev.sparksavepoint.adapters;

import dev.sparksavepoint.adapters.state.OperatorStateMetadata;
import dev.sparksavepoint.adapters.state.Spark4Only;
import dev.sparksavepoint.adapters.state.StateStoreMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import scala.Option;

/**
 * An operator's metadata files ({@code state/<op>/_metadata}): Spark 3.5, which writes and reads
 * none (Spark 4.0 added them). A checkpoint that has them was written by Spark 4.0 or later,
 * which 3.5 cannot run on: refused.
 */
public final class OperatorMetadataFiles {
  private OperatorMetadataFiles() {}

  /** Empty when the operator has no metadata; refused when it has (Spark 4.0+ wrote it). */
  public static Option<OperatorStateMetadata> read(
      Path opDir, Configuration conf, int version, long batchId) {
    Path folder = new Path(opDir, "_metadata");
    try {
      if (!folder.getFileSystem(conf).exists(folder)) return Option.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw Spark4Only.refuse(
        "a checkpoint written by Spark 4.0 or later (its operators have metadata files, "
            + folder
            + ")");
  }

  /** The stores {@code metadata} lists, in its order. */
  public static List<StateStoreMetadata> stores(OperatorStateMetadata metadata) {
    return List.of(); // unreachable: read() never returns metadata on 3.5
  }
}
