package dev.sparksavepoint.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.StateReadability;
import dev.sparksavepoint.checkpoint.StoreProviders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The state, per operator, partition and store: can the version the next batch loads be built
 * from the files ({@link StoreChain}), do the RocksDB zips it needs name SST files that are
 * there ({@link ZipManifest}), is a partition's folder missing, are there files of versions
 * past the last commit, and do operator metadata, schema files, the offset log's settings and
 * the files agree (partitions, provider).
 */
final class StateChecks {
  private static final String SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions";

  /** Recorded by Spark 3.1 and later, which write state schema files. */
  private static final String COMPRESSION_CODEC =
      "spark.sql.streaming.stateStore.compression.codec";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileSystem fs;
  private final Path root;
  private final CheckpointTree tree;
  private final LogChecks.Facts facts;
  private final Consumer<Finding> found;

  StateChecks(
      FileSystem fs,
      Path root,
      CheckpointTree tree,
      LogChecks.Facts facts,
      Consumer<Finding> found) {
    this.fs = fs;
    this.root = root;
    this.tree = tree;
    this.facts = facts;
    this.found = found;
  }

  void run() {
    if (facts.lastCommitted() < 0 || !tree.isFolder("state")) return;
    for (long op : StoreFolders.operators(tree)) operator(op);
  }

  private void operator(long op) {
    String dir = "state/" + op;
    long batch = facts.lastCommitted();
    JsonNode metadata = operatorMetadata(dir);
    TreeSet<Integer> folders = StoreFolders.partitions(tree, dir);
    int partitions = StateReadability.onePartition(folders) ? 1 : partitions(op, dir, metadata);
    List<String> stores = StoreFolders.stores(tree, dir, folders);
    boolean rocksdb = isRocksDB();
    boolean providerReported = false; // once per operator
    boolean formatReported = false;
    for (int p = 0; p < partitions; p++) {
      String folder = dir + "/" + p;
      if (!folders.contains(p)) {
        found.accept(
            Finding.of(
                Check.STATE_PARTITION_MISSING,
                batch,
                op,
                p,
                folder,
                "the state of partition "
                    + p
                    + " of operator "
                    + op
                    + " is missing ("
                    + folder
                    + "/): the operator has "
                    + partitions
                    + " partitions"));
        continue;
      }
      for (int index = 0; index < stores.size(); index++) {
        String storeFolder = StoreFolders.folder(folder, stores.get(index));
        StoreChain chain = StoreChain.of(tree, storeFolder);
        String id = StoreFolders.uniqueId(facts.uniqueIds(), op, p, index);
        if (chain.disagreesWith(rocksdb)) {
          if (!providerReported) {
            providerReported = true;
            found.accept(
                Finding.of(
                    Check.PROVIDER_DISAGREE,
                    batch,
                    op,
                    p,
                    storeFolder,
                    "the offset log records the "
                        + (rocksdb ? "RocksDB" : "HDFS-backed")
                        + " state store provider, but "
                        + storeFolder
                        + "/ holds "
                        + chain.kinds()
                        + " files"));
          }
          continue; // what is missing depends on the provider that wrote the files
        }
        if (!facts.idsKnown() && chain.namedByIds()) {
          continue; // the commit naming the files does not read: the doctor names that
        }
        if (chain.formatDisagreesWith(id)) {
          if (!formatReported) {
            formatReported = true;
            found.accept(
                Finding.of(
                    Check.FORMAT_DISAGREE,
                    batch,
                    op,
                    p,
                    storeFolder,
                    "commits/"
                        + batch
                        + (id == null ? " records no" : " records")
                        + " state checkpoint ids (checkpoint format "
                        + (id == null ? 1 : 2)
                        + "), but the files of "
                        + storeFolder
                        + "/ are named as format "
                        + (id == null ? 2 : 1)
                        + " names them"));
          }
          continue;
        }
        final int partition = p;
        final int store = index;
        LongFunction<String> earlier =
            v -> StoreFolders.uniqueId(facts.idsByBatch().get(v - 1), op, partition, store);
        for (String missing : chain.missing(batch + 1, id, earlier, rocksdb)) {
          String file = storeFolder + "/" + missing;
          found.accept(
              Finding.of(
                  Check.STATE_FILE_MISSING,
                  batch,
                  op,
                  p,
                  file,
                  file
                      + " is missing: the state of batch "
                      + batch
                      + " (version "
                      + (batch + 1)
                      + ") is built from it"));
        }
        String zip = chain.baseZip(batch + 1, id, earlier);
        if (zip != null) ZipManifest.check(fs, root, tree, storeFolder, zip, batch, op, p, found);
        for (String past : chain.pastVersion(batch + 1)) {
          pastCommit(op, p, storeFolder + "/" + past, StoreChain.version(past));
        }
      }
    }
    for (int p : folders.tailSet(partitions, true)) {
      found.accept(
          Finding.of(
              Check.EXTRA_PARTITION,
              batch,
              op,
              p,
              dir + "/" + p,
              dir + "/" + p + "/ is past the operator's " + partitions + " partitions"));
    }
    schemaFiles(op, dir, metadata);
    if (tree.isFolder(dir + "/_stateSchema")) {
      metadataV2(op, dir);
    } else {
      schemaFilesV1(op, dir, metadata, stores);
    }
  }

  /**
   * A state file of a version after the last commit's: of the planned, uncommitted batch (info:
   * it writes the file anew when it runs again), else of no batch the logs know (warning).
   */
  private void pastCommit(long op, int partition, String file, long version) {
    long batch = facts.lastCommitted();
    boolean planned = version == batch + 2 && facts.lastPlanned() == batch + 1;
    Finding finding =
        Finding.of(
            Check.STATE_FILES_PAST_COMMIT,
            batch,
            op,
            partition,
            file,
            file
                + " is of version "
                + version
                + ", after the last committed batch "
                + batch
                + " (version "
                + (batch + 1)
                + ")"
                + (planned ? ": the planned batch " + (batch + 1) + " wrote it" : ""));
    found.accept(planned ? finding.at(Check.Severity.INFO) : finding);
  }

  /** The operator's partition count: its metadata's, else the offset log's, else the folders'. */
  private int partitions(long op, String dir, JsonNode metadata) {
    String recorded = facts.conf().get(SHUFFLE_PARTITIONS);
    int fromConf = recorded == null ? -1 : Integer.parseInt(recorded.trim());
    int fromMetadata = metadata == null ? -1 : metadata.path("numPartitions").asInt(-1);
    if (fromConf > 0 && fromMetadata > 0 && fromConf != fromMetadata) {
      found.accept(
          Finding.of(
              Check.PARTITIONS_DISAGREE,
              facts.lastCommitted(),
              op,
              null,
              dir + "/_metadata",
              "operator "
                  + op
                  + "'s metadata records "
                  + fromMetadata
                  + " partitions, the offset"
                  + " log's "
                  + SHUFFLE_PARTITIONS
                  + " "
                  + fromConf));
    }
    if (fromMetadata > 0) return fromMetadata;
    if (fromConf > 0) return fromConf;
    int folders = 0;
    for (String name : tree.children(dir)) {
      if (name.matches("\\d+")) folders = Math.max(folders, Integer.parseInt(name) + 1);
    }
    return folders;
  }

  /**
   * An operator whose schema files metadata v2 names (transformWithState) needs an entry of
   * {@code _metadata/v2/} at or before the next batch: Spark's restart fails without one
   * ({@code STDS_FAILED_TO_READ_OPERATOR_METADATA}).
   */
  private void metadataV2(long op, String dir) {
    long next = facts.lastCommitted() + 1;
    for (String name : tree.children(dir + "/_metadata/v2")) {
      if (name.matches("\\d+") && Long.parseLong(name) <= next) return;
    }
    found.accept(
        Finding.of(
            Check.OPERATOR_METADATA_MISSING,
            facts.lastCommitted(),
            op,
            null,
            dir + "/_metadata/v2",
            "operator "
                + op
                + " keeps state schema files that its metadata names ("
                + dir
                + "/_stateSchema/), but "
                + dir
                + "/_metadata/v2/ has no entry at or before batch "
                + next
                + ": the query's restart fails"));
  }

  /** The store info of the operator's metadata as of the last commit (v2, else v1), or null. */
  private JsonNode operatorMetadata(String dir) {
    String file = dir + "/_metadata/metadata";
    TreeSet<Long> v2 = new TreeSet<>();
    for (String name : tree.children(dir + "/_metadata/v2")) {
      if (name.matches("\\d+")) v2.add(Long.parseLong(name));
    }
    Long entry = v2.floor(facts.lastCommitted());
    if (entry != null) file = dir + "/_metadata/v2/" + entry;
    if (!tree.has(file)) return null;
    try {
      byte[] bytes = CheckpointFiles.readAsSpark(fs, new Path(root, file), () -> {});
      List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
      return JSON.readTree(lines.get(1)).path("stateStoreInfo").path(0);
    } catch (IOException | RuntimeException e) {
      return null; // Spark's own reader reports what it cannot read
    }
  }

  private boolean isRocksDB() {
    String provider = facts.conf().get(StoreProviders.PROVIDER_CONF);
    return provider != null && provider.contains("RocksDB");
  }

  /**
   * The schema files Spark 3.1 and later write in partition 0 of each store of an operator
   * without metadata v2 schema paths ({@code state/0/0/_metadata/schema}, a join's
   * {@code state/0/0/left-keyToNumValues/_metadata/schema}): a warning when one is missing, as
   * the restart writes it anew, and until then the state cannot be read. Releases before 3.1
   * (whose offset log records no compression codec) wrote none.
   */
  private void schemaFilesV1(long op, String dir, JsonNode metadata, List<String> stores) {
    boolean v2 = metadata != null && metadata.has("stateSchemaFilePaths");
    if (v2 || !facts.conf().containsKey(COMPRESSION_CODEC) || !tree.isFolder(dir + "/0")) return;
    for (String store : stores) {
      String schema = StoreFolders.folder(dir + "/0", store) + "/_metadata/schema";
      if (!tree.has(schema)) {
        Finding finding =
            Finding.of(
                Check.SCHEMA_FILE_MISSING,
                facts.lastCommitted(),
                op,
                0,
                schema,
                schema
                    + " is missing: the query's restart writes it anew, and until then its"
                    + " state cannot be read");
        found.accept(finding.at(Check.Severity.WARNING));
      }
    }
  }

  /** The schema files operator metadata v2 names: here (or moved with the checkpoint). */
  private void schemaFiles(long op, String dir, JsonNode metadata) {
    if (metadata == null) return;
    for (JsonNode path : metadata.path("stateSchemaFilePaths")) {
      String recorded = path.asText();
      int at = recorded.indexOf("/" + dir + "/_stateSchema/");
      String local = at < 0 ? null : recorded.substring(at + 1);
      if (local != null && tree.has(local)) continue;
      try {
        if (fs.exists(new Path(recorded))) continue;
      } catch (IOException | RuntimeException e) {
        // an unreachable file system: missing as far as a restart here goes
      }
      found.accept(
          Finding.of(
              Check.SCHEMA_FILE_MISSING,
              facts.lastCommitted(),
              op,
              null,
              local == null ? recorded : local,
              "operator "
                  + op
                  + "'s metadata names the state schema file "
                  + recorded
                  + ", which is missing"));
    }
  }
}
