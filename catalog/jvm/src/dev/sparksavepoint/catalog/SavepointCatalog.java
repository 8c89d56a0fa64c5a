package dev.sparksavepoint.catalog;

import dev.sparksavepoint.actions.EmptySavepoint;
import dev.sparksavepoint.checkpoint.Checkpoint;
import dev.sparksavepoint.checkpoint.Operator;
import dev.sparksavepoint.checkpoint.StateReadability;
import dev.sparksavepoint.checkpoint.StateRef;
import dev.sparksavepoint.checkpoint.TableOrigin;
import dev.sparksavepoint.checkpoint.ValueNames;
import dev.sparksavepoint.commit.InterruptedEdit;
import dev.sparksavepoint.errors.Errors;
import dev.sparksavepoint.procedures.Procedures;
import dev.sparksavepoint.read.StateSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Spark catalog over one streaming checkpoint or savepoint: every stateful operator is a
 * namespace named by its uid ({@code agg_0}, see {@link Operator}), every state a table.
 *
 * <p>Options ({@code spark.sql.catalog.<name>.<option>}):
 * <ul>
 *   <li>{@code path} (required): the checkpoint folder, any Hadoop file system URI.</li>
 * </ul>
 *
 * <p>Tables: {@code <name>.<uid>.<state>} (add {@code VERSION AS OF <batchId>} or
 * {@code TIMESTAMP AS OF <ts>} to read an older committed batch) and {@code <name>.metadata}.
 * Listing and describing read metadata files only; no Spark job is launched. The opened
 * checkpoint is kept while its logs are unchanged, so the many calls Spark makes for one
 * statement read its metadata files once; a new batch (an edit, the query) opens it afresh.
 */
public class SavepointCatalog implements TableCatalog, SupportsNamespaces, ProcedureCatalog {
  private String name;
  private String initialPath;
  private String initialLike;
  private boolean initialWritable;
  private String initialSink;

  /** The checkpoint of the last call (error messages). */
  private String path;

  /** The checkpoint opened last, reused while its logs are unchanged (see {@link #checkpoint}). */
  private volatile Checkpoint opened;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
    this.initialPath = options.get("path");
    this.initialLike = options.get("like");
    this.initialWritable = options.getBoolean("writable", false);
    this.initialSink = options.get("sink");
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * The checkpoint as of now. The path is looked up in the session conf on every call, so
   * re-attaching a catalog name takes effect at once; the checkpoint opened before is reused
   * while its offsets and commits logs list the same entries ({@link Checkpoint#refreshed}),
   * so new batches and operators show up at the next call.
   */
  public Checkpoint checkpoint() {
    SparkSession spark = SparkSession.active();
    path = configuredPath();
    String like = spark.conf().get("spark.sql.catalog." + name + ".like", initialLike);
    EmptySavepoint.createIfMissing(spark, path, like);
    Checkpoint last = opened;
    Checkpoint current =
        last != null && last.location().equals(path)
            ? last.refreshed()
            : Checkpoint.open(path, hadoopConf());
    if (current != last) InterruptedEdit.noticeOnRead(current);
    opened = current;
    return current;
  }

  /**
   * The folder the catalog is attached to, as configured (not opened: a procedure such as
   * {@code recover} works on folders that are no checkpoint yet).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_PATH_NOT_SET
   */
  private String configuredPath() {
    String configured =
        SparkSession.active().conf().get("spark.sql.catalog." + name + ".path", initialPath);
    if (configured == null || configured.isBlank()) throw Errors.pathNotSet(name);
    return configured;
  }

  /** True when the catalog is opened for edits of a savepoint ({@code writable=true}). */
  private boolean openedWritable() {
    return Boolean.parseBoolean(
        SparkSession.active()
            .conf()
            .get("spark.sql.catalog." + name + ".writable", String.valueOf(initialWritable)));
  }

  /** The output folder of the query's file sink (catalog option {@code sink}), or null. */
  private String sink() {
    String sink =
        SparkSession.active().conf().get("spark.sql.catalog." + name + ".sink", initialSink);
    return sink == null || sink.isBlank() ? null : sink;
  }

  private static Configuration hadoopConf() {
    return SparkSession.active().sessionState().newHadoopConf();
  }

  // ---- procedures: CALL <catalog>.system.<name>(...) ----

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    UnboundProcedure procedure =
        ident.namespace().length == 1 && ident.namespace()[0].equalsIgnoreCase(Procedures.NAMESPACE)
            ? Procedures.load(ident.name().toLowerCase(java.util.Locale.ROOT), this::configuredPath)
            : null;
    if (procedure == null) {
      throw Errors.analysis(
          "SAVEPOINT_NO_SUCH_PROCEDURE",
          "No procedure "
              + name
              + "."
              + String.join(".", ident.namespace())
              + "."
              + ident.name()
              + "; the procedures are "
              + name
              + ".system."
              + String.join(", " + name + ".system.", Procedures.names())
              + ".");
    }
    return procedure;
  }

  // no @Override: Spark 4.0's ProcedureCatalog does not list its procedures (4.1's does)
  public Identifier[] listProcedures(String[] namespace) {
    return Procedures.names().stream()
        .map(n -> Identifier.of(new String[] {Procedures.NAMESPACE}, n))
        .toArray(Identifier[]::new);
  }

  // ---- namespaces: one per stateful operator ----

  @Override
  public String[][] listNamespaces() {
    Checkpoint ckpt = checkpoint();
    if (!ckpt.hasCommittedBatch()) return new String[0][];
    List<String[]> names = new ArrayList<>();
    Map<Long, String> users = ckpt.userUids();
    for (Operator op : ckpt.operators(ckpt.lastCommitted())) {
      names.add(new String[] {op.uid()});
      if (users.containsKey(op.id())) names.add(new String[] {users.get(op.id())});
    }
    for (String ns : logNamespaces()) names.add(new String[] {ns});
    return names.toArray(String[][]::new);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length == 0) return listNamespaces();
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace);
    return new String[0][];
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    if (namespace.length == 0) return true;
    if (namespace.length != 1) return false;
    Checkpoint ckpt = checkpoint();
    if (QueryLogTables.namespace(namespace[0]) != null) return ckpt.hasCommittedBatch();
    return ckpt.hasCommittedBatch()
        && ckpt.operators(ckpt.lastCommitted()).stream()
            .anyMatch(op -> ckpt.answersTo(op, namespace[0]));
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) {
    Checkpoint ckpt = checkpoint();
    if (namespace.length != 1) {
      throw Errors.noSuchOperator(
          path, String.join(".", namespace), String.join(", ", ckpt.operatorNames()));
    }
    String logs = QueryLogTables.namespace(namespace[0]);
    if (logs != null) {
      return Map.of(
          "comment",
          QueryLogTables.comment(logs),
          "location",
          ckpt.location(),
          "tables",
          String.join(",", QueryLogTables.tables(logs)));
    }
    Operator op = ckpt.operator(namespace[0], ckpt.lastCommitted());
    Map<String, String> meta = new HashMap<>();
    meta.put("comment", op.kind().prefix() + " operator " + op.id() + " (" + op.name() + ")");
    meta.put("location", ckpt.location() + "/state/" + op.id());
    meta.put("operator_id", Long.toString(op.id()));
    meta.put("operator_name", op.name());
    meta.put("num_partitions", Integer.toString(op.numPartitions()));
    meta.put("states", String.join(",", op.tableNames()));
    return meta;
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    throw Errors.unsupported("CREATE NAMESPACE " + qualified(namespace), name);
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw Errors.unsupported("ALTER NAMESPACE " + qualified(namespace), name);
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    throw Errors.unsupported("DROP NAMESPACE " + qualified(namespace), name);
  }

  private String qualified(String[] namespace) {
    return name + (namespace.length == 0 ? "" : "." + String.join(".", namespace));
  }

  private String qualified(Identifier ident) {
    return qualified(ident.namespace()) + "." + ident.name();
  }

  // ---- tables: one per state ----

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    Checkpoint ckpt = checkpoint();
    if (namespace.length == 0) {
      return new Identifier[] {Identifier.of(namespace, MetadataTable.NAME)};
    }
    if (namespace.length != 1) throw new NoSuchNamespaceException(namespace);
    String logs = QueryLogTables.namespace(namespace[0]);
    if (logs != null) {
      return QueryLogTables.tables(logs).stream()
          .map(t -> Identifier.of(namespace, t))
          .toArray(Identifier[]::new);
    }
    Operator op =
        ckpt.operator(namespace[0], ckpt.lastCommitted()); // or SAVEPOINT_NO_SUCH_OPERATOR
    List<Identifier> ids = new ArrayList<>();
    for (String table : op.tableNames()) ids.add(Identifier.of(namespace, table));
    return ids.toArray(new Identifier[0]);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    try {
      Checkpoint ckpt = checkpoint();
      if (isMetadata(ident)) return true;
      if (ident.namespace().length != 1 || !ckpt.hasCommittedBatch()) return false;
      String logs = QueryLogTables.namespace(ident.namespace()[0]);
      if (logs != null) {
        return QueryLogTables.tables(logs).stream().anyMatch(t -> t.equalsIgnoreCase(ident.name()));
      }
      return ckpt.operators(ckpt.lastCommitted()).stream()
          .anyMatch(
              op -> op.answersTo(ident.namespace()[0]) && findTable(op, ident.name()) != null);
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return load(ident, null);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    long batchId;
    try {
      batchId = Long.parseLong(version.trim());
    } catch (NumberFormatException e) {
      throw Errors.badVersion(checkpoint().location(), qualified(ident), version);
    }
    return load(ident, batchId);
  }

  @Override
  public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
    return load(ident, checkpoint().batchAsOf(timestampMicros / 1000));
  }

  private Table load(Identifier ident, Long requestedBatch) throws NoSuchTableException {
    Checkpoint ckpt = checkpoint();
    long batchId = requestedBatch == null ? ckpt.lastCommitted() : ckpt.checkBatch(requestedBatch);
    ckpt.checkLogs(batchId);
    if (isMetadata(ident)) {
      return new MetadataTable(
          name,
          ckpt,
          batchId,
          sink() != null,
          (op, schema) -> valueNames(ckpt, batchId, op, schema));
    }
    if (ident.namespace().length != 1) throw new NoSuchTableException(ident);
    String logs = QueryLogTables.namespace(ident.namespace()[0]);
    if (logs != null) {
      Table table =
          QueryLogTables.load(name, ckpt, logs, ident.name(), batchId, requestedBatch, sink());
      if (table == null) {
        throw Errors.noSuchState(
            path, logs, ident.name(), String.join(", ", QueryLogTables.tables(logs)));
      }
      return table;
    }
    Operator op = ckpt.operator(ident.namespace()[0], batchId);
    String table = findTable(op, ident.name());
    if (table == null) {
      throw Errors.noSuchState(path, op.uid(), ident.name(), String.join(", ", op.tableNames()));
    }
    StateRef ref = op.tables().get(table);
    Map<String, String> options = ref.options(ckpt.location(), batchId);
    Map<String, String> props = new HashMap<>();
    props.put("uid", op.uid());
    props.put("operator_id", Long.toString(op.id()));
    props.put("operator_name", op.name());
    props.put("state_kind", op.stateKind(table, ref));
    props.put("batch_id", Long.toString(batchId));
    props.put("checkpoint", ckpt.location());
    if (requestedBatch != null) props.put(FlatStateTable.AS_OF, Long.toString(batchId));
    StateReadability.check(ckpt, op, table, batchId);
    StructType schema = StateSource.schema(ckpt, op, table, batchId, options);
    return FlatStateTable.create(
        name + "." + op.uid() + "." + table,
        schema,
        table.equals("default") ? valueNames(ckpt, batchId, op, schema) : List.of(),
        options,
        props,
        new TableOrigin(
            ckpt.location(), op, table, ref, batchId, openedWritable(), queryPartitioning(op)));
  }

  /**
   * The columns the catalog's query partitions {@code op}'s input by, comma-separated, from the
   * session conf {@code spark.sql.catalog.<name>.partitionedBy} ({@link #queryNames}); null when
   * not given.
   */
  private String queryPartitioning(Operator op) {
    List<String> columns = queryNames("partitionedBy", op);
    return columns == null || columns.isEmpty() ? null : String.join(",", columns);
  }

  /**
   * The query's names for aggregation {@code op}'s value columns ({@code schema}: the state
   * reader's): from the session conf {@code spark.sql.catalog.<name>.valueNames}
   * ({@link #queryNames}), else those the query recorded in the checkpoint when they fit it
   * ({@link ValueNames#fitting}); empty: Spark's (always for other operators than aggregations).
   */
  private List<String> valueNames(Checkpoint ckpt, long batchId, Operator op, StructType schema) {
    if (!op.kind().hasValueNames()) return List.of();
    List<String> names = queryNames("valueNames", op);
    return names == null ? ValueNames.fitting(ckpt, batchId, op, schema) : names;
  }

  /**
   * {@code op}'s list in the session conf {@code spark.sql.catalog.<name>.<key>}: JSON, operator
   * id to names (a JSON null stays null), set by {@code attach(..., query=df)} and
   * {@code --query}; null when the conf is not set, empty when it names no such operator.
   */
  private List<String> queryNames(String key, Operator op) {
    String conf = "spark.sql.catalog." + name + "." + key;
    String json = SparkSession.active().conf().get(conf, "");
    if (json.isBlank()) return null;
    try {
      com.fasterxml.jackson.databind.JsonNode names =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(json)
              .path(Long.toString(op.id()));
      List<String> result = new java.util.ArrayList<>();
      for (com.fasterxml.jackson.databind.JsonNode n : names) {
        result.add(n.isNull() ? null : n.asText());
      }
      return result;
    } catch (java.io.IOException e) {
      throw Errors.badArguments(path, conf + " is not JSON: " + e.getMessage());
    }
  }

  /** The query-log namespaces this catalog shows: {@code sink} only with a sink option. */
  private List<String> logNamespaces() {
    boolean sink = sink() != null;
    return QueryLogTables.namespaces().stream()
        .filter(ns -> sink || !ns.equals(SinkFilesTable.NAMESPACE))
        .toList();
  }

  private static boolean isMetadata(Identifier ident) {
    return ident.namespace().length == 0 && ident.name().equalsIgnoreCase(MetadataTable.NAME);
  }

  private static String findTable(Operator op, String requested) {
    for (String table : op.tableNames()) {
      if (table.equalsIgnoreCase(requested)) return table;
    }
    return null;
  }

  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    throw Errors.unsupported("CREATE TABLE " + qualified(ident), name);
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    throw Errors.unsupported("CREATE TABLE " + qualified(ident), name);
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw Errors.unsupported("ALTER TABLE " + qualified(ident), name);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    throw Errors.unsupported("DROP TABLE " + qualified(ident), name);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    throw Errors.unsupported("DROP TABLE " + qualified(ident) + " PURGE", name);
  }

  @Override
  public void renameTable(Identifier from, Identifier to) {
    throw Errors.unsupported("RENAME TABLE " + qualified(from), name);
  }
}
