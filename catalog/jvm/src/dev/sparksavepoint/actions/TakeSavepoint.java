package dev.sparksavepoint.actions;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.CheckpointFiles;
import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.SavepointManifest;
import dev.sparksavepoint.checkpoint.StoreSpec;
import dev.sparksavepoint.commit.PartitionCommit;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.image.ImagePlan.StoreCopy;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * Takes a savepoint: a self-contained, relocatable, immutable image of a checkpoint at one
 * committed batch ({@link CheckpointCopy}: only what the batch needs, one full state image per
 * store partition), plus its manifest {@code _savepoint.json} ({@link SavepointManifest}),
 * written last. Reads only committed files, so it works while the query runs; never writes
 * into the checkpoint.
 *
 * <p>Row counts come where the files record them (a RocksDB version's metadata) or where the
 * copy writes entry by entry; an HDFS-backed image copied as it is records none, so its rows are
 * {@code null} in the manifest unless {@code countRows} reads every record to count them.
 *
 * <p>Example: {@code TakeSavepoint.run(spark, "/ckpt/orders", "/savepoints/orders-41", -1,
 * List.of("0=orders_by_user"), false, false)}
 */
public final class TakeSavepoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TakeSavepoint() {}

  /**
   * Takes a savepoint of batch {@code batchId} (-1: the last committed) of {@code checkpoint}
   * into {@code target}; returns its manifest (JSON).
   *
   * @param uids {@code OPERATOR=NAME} user uids to record (see {@link CopyChanges})
   * @param writable allow edits through the catalog on the savepoint
   * @param countRows count the rows no file records (HDFS-backed images: every record read)
   */
  public static String run(
      SparkSession spark,
      String checkpoint,
      String target,
      long batchId,
      List<String> uids,
      boolean writable,
      boolean countRows) {
    Configuration conf = spark.sessionState().newHadoopConf();
    Checkpoint from = Checkpoint.open(checkpoint, conf);
    if (!from.hasCommittedBatch()) throw Errors.noCommittedBatch(checkpoint);
    long n = batchId < 0 ? from.lastCommitted() : from.checkBatch(batchId);
    ObjectNode[] manifest = new ObjectNode[1];
    CheckpointCopy.run(
        spark,
        from,
        n,
        target,
        CopyChanges.none(uids),
        "take a savepoint of '" + checkpoint + "'",
        null,
        new CheckpointCopy.Finish() {
          @Override
          public void run(CheckpointCopy.Copied copied) throws IOException {
            manifest[0] = manifest(spark, copied, writable);
            CheckpointFiles.writeNew(
                SavepointManifest.file(copied.root()),
                CheckpointFiles.prettyJson(manifest[0]),
                conf);
          }

          @Override
          public boolean needsDigests() {
            return true;
          }

          @Override
          public boolean needsRowCounts() {
            return countRows;
          }
        });
    return manifest[0].toString();
  }

  private static ObjectNode manifest(
      SparkSession spark, CheckpointCopy.Copied copied, boolean writable) throws IOException {
    Checkpoint from = copied.source();
    long n = copied.batchId();
    ObjectNode m = JSON.createObjectNode();
    m.put("format", SavepointManifest.FORMAT);
    m.put("batch_id", n);
    m.put("taken_at", Instant.now().toString());
    m.put("writable", writable);
    ObjectNode source = m.putObject("source");
    source.put("checkpoint", from.fileSystem().makeQualified(from.root()).toString());
    source.put("query_id", String.valueOf(from.queryId()));
    source.put("batch_id", n);
    source.put("committed_at", Instant.ofEpochMilli(from.commitTimeMs(n)).toString());
    source.put("written_by_spark", from.writtenBy(n));
    m.put("taken_with_spark", spark.version());
    m.put(
        "provider",
        CheckpointCopy.providerNames().getOrDefault(copied.provider(), copied.provider()));
    m.put("provider_class", copied.provider());
    String partitions = from.recordedConf(n).get(CheckpointCopy.PARTITIONS_CONF);
    if (partitions != null) m.put("partitions", Integer.parseInt(partitions));
    Long totalRows = 0L;
    long totalBytes = 0;
    ArrayNode operators = m.putArray("operators");
    for (Operator op : copied.operators()) {
      Long id = copied.resolved().target(op.id());
      if (id == null) continue;
      ObjectNode o = operators.addObject();
      o.put("operator_id", id);
      o.put("uid", op.kind().prefix() + "_" + id);
      String user = copied.resolved().userUids().get(id);
      if (user == null) o.putNull("user_uid");
      else o.put("user_uid", user);
      o.put("name", op.name());
      o.put("kind", op.kind().prefix());
      o.put("partitions", op.numPartitions());
      Long rows = 0L;
      ArrayNode stores = o.putArray("stores");
      for (StoreCopy copy : copied.plan().copies()) {
        StoreSpec spec = copy.to();
        if (spec.operatorId() != id) continue;
        ObjectNode s = stores.addObject();
        s.put("name", spec.storeName());
        s.put("key_schema", spec.keySchema().simpleString());
        s.put("value_schema", spec.valueSchema().simpleString());
        if (spec.families() != null) s.putPOJO("column_families", spec.families().names());
        Long storeRows = rows(copied.commits(), spec);
        s.put("rows", storeRows);
        rows = sum(rows, storeRows);
      }
      long bytes =
          CheckpointCopy.bytes(
              copied.fs(), new Path(new Path(copied.root(), "state"), Long.toString(id)));
      o.put("rows", rows);
      o.put("bytes", bytes);
      totalRows = sum(totalRows, rows);
      totalBytes += bytes;
    }
    ArrayNode list = m.putArray("files");
    long all = 0;
    for (FileDigests.Digest d : digests(copied)) {
      ObjectNode f = list.addObject();
      f.put("path", d.path());
      f.put("bytes", d.bytes());
      f.put("sha256", d.sha256());
      all += d.bytes();
    }
    m.put("rows", totalRows);
    m.put("state_bytes", totalBytes);
    m.put("bytes", all);
    return m;
  }

  /**
   * The digest of every file of the savepoint but its manifest: the state files' from the copy's
   * tasks (computed as they wrote them), the others' (logs, metadata) read here.
   */
  private static List<FileDigests.Digest> digests(CheckpointCopy.Copied copied) throws IOException {
    List<FileDigests.Digest> digests = new ArrayList<>();
    for (String file : FileDigests.list(copied.fs(), copied.root(), SavepointManifest.FILE)) {
      FileDigests.Digest known = copied.digests().get(file);
      digests.add(
          known != null ? known : FileDigests.of(copied.fs(), new Path(copied.root(), file), file));
    }
    return digests;
  }

  /** The rows of {@code spec}'s partitions; null when a partition's were not counted. */
  private static Long rows(List<PartitionCommit> commits, StoreSpec spec) {
    Long rows = 0L;
    for (PartitionCommit c : commits) {
      if (c.operatorId() == spec.operatorId() && c.storeName().equals(spec.storeName())) {
        rows = sum(rows, c.upserted() < 0 ? null : c.upserted());
      }
    }
    return rows;
  }

  /** {@code a + b}; null (not counted) when either is. */
  private static Long sum(Long a, Long b) {
    return a == null || b == null ? null : a + b;
  }
}
