package dev.sparksavepoint.catalog;

import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.errors.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The namespaces of a query's operator-level state, beside the stateful operators' own: what its
 * logs hold rather than its state stores (Flink's operator state, where keyed state is ours per
 * uid).
 * <ul>
 *   <li>{@code sources.offsets}, {@code sources.files}: source positions, a file source's seen
 *       files ({@link SourceOffsetsTable}, {@link SourceFilesTable});
 *   <li>{@code query.batches}: batch metadata and watermarks ({@link BatchesTable});
 *   <li>{@code query.edits}: the batches edits committed ({@link EditsTable});
 *   <li>{@code sink.files}: a file sink's log, when the catalog's {@code sink} option names its
 *       output folder ({@link SinkFilesTable}).
 * </ul>
 * These names are reserved: no operator uid can take them.
 */
final class QueryLogTables {
  private static final Map<String, List<String>> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put(
        SourceOffsetsTable.NAMESPACE, List.of(SourceOffsetsTable.NAME, SourceFilesTable.NAME));
    TABLES.put(BatchesTable.NAMESPACE, List.of(BatchesTable.NAME, EditsTable.NAME));
    TABLES.put(SinkFilesTable.NAMESPACE, List.of(SinkFilesTable.NAME));
  }

  private QueryLogTables() {}

  /** The namespaces, in listing order. */
  static List<String> namespaces() {
    return List.copyOf(TABLES.keySet());
  }

  /** The namespace's own spelling when {@code name} is one of them (any case), else null. */
  static String namespace(String name) {
    for (String ns : TABLES.keySet()) {
      if (ns.equalsIgnoreCase(name)) return ns;
    }
    return null;
  }

  /** The tables of namespace {@code ns} (as spelled by {@link #namespace}). */
  static List<String> tables(String ns) {
    return TABLES.get(ns);
  }

  /** A table as {@code <catalog>.metadata} lists it: its columns split into key and value. */
  record Listed(String namespace, String table, StructType keys, StructType values) {}

  /** Every table, as listed in the metadata table; {@code sink.files} only when {@code sink}. */
  static List<Listed> listed(boolean sink) {
    List<Listed> listed = new ArrayList<>();
    listed.add(
        split(
            SourceOffsetsTable.NAMESPACE,
            SourceOffsetsTable.NAME,
            SourceOffsetsTable.SCHEMA,
            "source_id",
            "topic",
            "partition"));
    listed.add(
        split(
            SourceOffsetsTable.NAMESPACE,
            SourceFilesTable.NAME,
            SourceFilesTable.SCHEMA,
            "source_id",
            "path"));
    listed.add(split(BatchesTable.NAMESPACE, BatchesTable.NAME, BatchesTable.SCHEMA, "batch_id"));
    listed.add(split(BatchesTable.NAMESPACE, EditsTable.NAME, EditsTable.SCHEMA, "batch_id"));
    if (sink) {
      listed.add(
          split(
              SinkFilesTable.NAMESPACE,
              SinkFilesTable.NAME,
              SinkFilesTable.SCHEMA,
              "batch_id",
              "path"));
    }
    return listed;
  }

  private static Listed split(String ns, String table, StructType schema, String... keys) {
    List<String> keyNames = List.of(keys);
    StructType key = new StructType();
    StructType value = new StructType();
    for (StructField f : schema.fields()) {
      if (keyNames.contains(f.name())) key = key.add(f);
      else value = value.add(f);
    }
    return new Listed(ns, table, key, value);
  }

  /** A short description of the namespace, for DESCRIBE NAMESPACE. */
  static String comment(String ns) {
    return switch (ns) {
      case SourceOffsetsTable.NAMESPACE -> "source positions and a file source's seen files";
      case BatchesTable.NAMESPACE -> "batches: timestamps, watermarks, recorded confs; edits";
      default -> "the file sink's log (which batch wrote which files)";
    };
  }

  /**
   * Table {@code table} of namespace {@code ns} as of batch {@code batchId}; {@code requested}
   * is the batch asked for with VERSION/TIMESTAMP AS OF, or null (listings then show every
   * batch). Null when there is no such table.
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_NO_SINK_LOG for {@code sink.files}
   *     without a {@code sink} option (the namespace answers anyway, so that reading it says
   *     how to set one)
   */
  static Table load(
      String catalog,
      Checkpoint ckpt,
      String ns,
      String table,
      long batchId,
      Long requested,
      String sink) {
    String name = null;
    for (String t : TABLES.get(ns)) {
      if (t.equalsIgnoreCase(table)) name = t;
    }
    if (name == null) return null;
    return switch (ns + "." + name) {
      case "sources.offsets" -> new SourceOffsetsTable(catalog, ckpt, batchId);
      case "sources.files" -> new SourceFilesTable(catalog, ckpt, batchId);
      case "query.batches" -> new BatchesTable(catalog, ckpt, requested, batchId);
      case "query.edits" -> new EditsTable(catalog, ckpt, batchId);
      default -> {
        if (sink == null) throw Errors.noSinkLog(ckpt.location(), null, catalog);
        yield new SinkFilesTable(catalog, ckpt.location(), sink, requested);
      }
    };
  }
}
