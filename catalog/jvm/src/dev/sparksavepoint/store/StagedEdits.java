package dev.sparksavepoint.store;

import dev.sparksavepoint.checkpoint.StoreSpec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;

/**
 * The changes one statement of an edit transaction ({@code write.EditTransaction}) makes to one
 * store partition, recorded in order while the statement runs against the read-only state of batch
 * N and replayed onto the writable store when the transaction commits. Each change is the operation
 * the statement would have called on Spark's store, with the key and value rows as the bytes Spark
 * encoded them to; the file is transient (it lives in the transaction's staging folder and is
 * removed with it) and is never read by Spark.
 *
 * <p>Recording starts the file at the first change: a partition the statement does not change
 * has no file. Each change is also counted by the statement's {@link DryRun}, whose report the
 * transaction shows.
 */
public final class StagedEdits implements PartitionSink.Recording {
  private static final byte PUT = 1;
  private static final byte REMOVE = 2;
  private static final byte APPEND = 3;
  private static final byte PUT_LIST = 4;

  private final Path file;
  private final Configuration conf;
  private final DryRun counts;
  private DataOutputStream out;

  /**
   * Where replayed changes go: the store partition a transaction commits
   * ({@link StatePartition}), or the state a later statement reads ({@link StagedState}).
   */
  public interface Target {
    void put(UnsafeRow key, UnsafeRow value, String cf);

    void remove(UnsafeRow key, String cf);

    /** Appends {@code values} to the list under {@code key}. */
    void mergeList(UnsafeRow key, List<UnsafeRow> values, String cf);

    /** Sets the list under {@code key} to exactly {@code values}. */
    void putList(UnsafeRow key, List<UnsafeRow> values, String cf);
  }

  private StagedEdits(Path file, Configuration conf, DryRun counts) {
    this.file = file;
    this.conf = conf;
    this.counts = counts;
  }

  /**
   * A recorder of {@code spec}'s partition {@code partition} into {@code folder}, counting with
   * {@code counts}.
   */
  static StagedEdits recorder(
      String folder, StoreSpec spec, int partition, Configuration conf, DryRun counts) {
    return new StagedEdits(new Path(folder, fileName(spec, partition)), conf, counts);
  }

  /** The file of a store partition: {@code <operator>-<store>-<partition>.edits}. */
  static String fileName(StoreSpec spec, int partition) {
    return spec.operatorId() + "-" + spec.storeName() + "-" + partition + ".edits";
  }

  @Override
  public void put(UnsafeRow key, UnsafeRow value, String cf) {
    counts.put(key, value, cf);
    record(PUT, cf, key, List.of(value));
  }

  @Override
  public void remove(UnsafeRow key, String cf) {
    counts.remove(key, cf);
    record(REMOVE, cf, key, List.of());
  }

  /** Values appended to a list ({@code merge}/{@code mergeList}). */
  @Override
  public void append(UnsafeRow key, List<UnsafeRow> values, String cf) {
    counts.append(key, values, cf);
    record(APPEND, cf, key, values);
  }

  /** A list set to exactly {@code values} ({@code putList}). */
  @Override
  public void putList(UnsafeRow key, List<UnsafeRow> values, String cf) {
    counts.putList(key, values, cf);
    record(PUT_LIST, cf, key, values);
  }

  private void record(byte op, String cf, UnsafeRow key, List<UnsafeRow> values) {
    try {
      if (out == null) out = file.getFileSystem(conf).create(file, true); // a retried task's
      out.writeByte(op);
      out.writeUTF(cf);
      writeRow(out, key);
      out.writeInt(values.size());
      for (UnsafeRow v : values) writeRow(out, v);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record staged edits in " + file, e);
    }
  }

  /** Ends the recording: what was counted, with the file (null when nothing was recorded). */
  @Override
  public PlannedChanges end(int partition) {
    String staged = null;
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot record staged edits in " + file, e);
      }
      staged = file.toString();
    }
    return counts.changes(partition, staged);
  }

  /** Drops the recording (a failed statement): removes the file if it was started. */
  @Override
  public void abort() {
    counts.abort();
    if (out == null) return;
    try {
      out.close();
      file.getFileSystem(conf).delete(file, false);
    } catch (IOException e) {
      // the transaction's staging folder goes as a whole when the transaction ends
    }
    out = null;
  }

  /**
   * Applies the changes recorded in {@code path} to {@code store}, in their order.
   *
   * @throws UncheckedIOException when the file cannot be read
   */
  static void replay(String path, Configuration conf, Target store) {
    Path file = new Path(path);
    try {
      FileSystem fs = file.getFileSystem(conf);
      try (DataInputStream in = fs.open(file)) {
        while (true) {
          byte op;
          try {
            op = in.readByte();
          } catch (EOFException end) {
            return;
          }
          String cf = in.readUTF();
          UnsafeRow key = readRow(in);
          int n = in.readInt();
          List<UnsafeRow> values = new ArrayList<>(n);
          for (int i = 0; i < n; i++) values.add(readRow(in));
          switch (op) {
            case PUT -> store.put(key, values.get(0), cf);
            case REMOVE -> store.remove(key, cf);
            case APPEND -> store.mergeList(key, values, cf);
            case PUT_LIST -> store.putList(key, values, cf);
            default -> throw new IOException("unknown staged change " + op);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read staged edits " + file, e);
    }
  }

  /**
   * Applies what the statements staged in {@code paths} (one store partition's files, in
   * statement order) to {@code store}: the changes of one file as they were recorded, those of
   * several folded into one change per key, the last statement's (held in memory meanwhile).
   *
   * @throws UncheckedIOException when a file cannot be read
   */
  public static void replayAll(List<String> paths, Configuration conf, Target store) {
    if (paths.size() == 1) {
      replay(paths.get(0), conf, store);
    } else {
      StagedState.of(paths, conf).applyTo(store);
    }
  }

  private static void writeRow(DataOutputStream out, UnsafeRow row) throws IOException {
    byte[] bytes = row.getBytes();
    out.writeInt(row.numFields());
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static UnsafeRow readRow(DataInputStream in) throws IOException {
    int fields = in.readInt();
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    UnsafeRow row = new UnsafeRow(fields);
    row.pointTo(bytes, bytes.length);
    return row;
  }
}
