package dev.sparksavepoint.checkpoint;

import dev.sparksavepoint.adapters.OperatorMetadataFiles;
import dev.sparksavepoint.adapters.ScalaDefaults;
import dev.sparksavepoint.errors.Errors;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.execution.streaming.state.InMemoryStateSchemaProvider;
import org.apache.spark.sql.execution.streaming.state.KeyStateEncoderSpec;
import org.apache.spark.sql.execution.streaming.state.NoPrefixKeyStateEncoderSpec;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadata;
import org.apache.spark.sql.execution.streaming.state.OperatorStateMetadataV2;
import org.apache.spark.sql.execution.streaming.state.StateSchemaCompatibilityChecker;
import org.apache.spark.sql.execution.streaming.state.StateSchemaMetadata$;
import org.apache.spark.sql.execution.streaming.state.StateSchemaProvider;
import org.apache.spark.sql.execution.streaming.state.StateStore;
import org.apache.spark.sql.execution.streaming.state.StateStoreColFamilySchema;
import org.apache.spark.sql.execution.streaming.state.StateStoreId;
import org.apache.spark.sql.execution.streaming.state.StateStoreMetadataV2;
import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The column families of a transformWithState store (RocksDB): one per state variable plus
 * Spark's internal ones ({@code $rowCounter_<list>}, the two timer indexes, TTL indexes), read
 * with Spark's own classes from the operator's v3 state schema file, as Spark's
 * {@code StateRewriter} reads them. A write registers every one of them on the store it opens
 * ({@code createColFamilyIfAbsent}, exactly as the query's state variables do), so the new
 * version carries all of them; list variables are multi-valued.
 */
public final class ColumnFamilies implements Serializable {
  private final Map<String, StateStoreColFamilySchema> schemas;
  private final Set<String> multiValued;
  private final List<String> schemaFiles;

  private ColumnFamilies(
      Map<String, StateStoreColFamilySchema> schemas,
      Set<String> multiValued,
      List<String> schemaFiles) {
    this.schemas = schemas;
    this.multiValued = multiValued;
    this.schemaFiles = schemaFiles;
  }

  /**
   * Reads the column families of store {@code storeName} of operator {@code op} as of
   * {@code batchId} (operator metadata v2 and the schema files it lists).
   *
   * @throws org.apache.spark.sql.AnalysisException SAVEPOINT_CORRUPT_FILE when the metadata or
   *     a schema file is missing or cannot be parsed
   */
  public static ColumnFamilies read(
      String checkpoint, Operator op, String storeName, long batchId, Configuration hadoopConf) {
    Path opDir = new Path(new Path(checkpoint, "state"), Long.toString(op.id()));
    List<String> files;
    try {
      files =
          relocated(checkpoint, op, schemaFiles(opDir, storeName, batchId, hadoopConf), hadoopConf);
    } catch (RuntimeException e) {
      throw damaged(
          checkpoint,
          op,
          batchId,
          "state/"
              + op.id()
              + "/_metadata/v2/ (entry for"
              + " batch "
              + batchId
              + " or the latest before it)",
          e);
    }
    Map<String, StateStoreColFamilySchema> schemas = new LinkedHashMap<>();
    try {
      for (StateStoreColFamilySchema schema :
          readSchemas(checkpoint, op, storeName, files, hadoopConf)) {
        schemas.put(schema.colFamilyName(), withEncoderSpec(schema));
      }
    } catch (RuntimeException e) {
      throw damaged(
          checkpoint,
          op,
          batchId,
          "state/" + op.id() + "/_stateSchema/ (state schema" + " files of " + op.uid() + ")",
          e);
    }
    Set<String> multiValued = new HashSet<>();
    op.stateVariables()
        .forEach(
            (name, type) -> {
              if (type.startsWith("List")) multiValued.add(name);
            });
    return new ColumnFamilies(schemas, multiValued, files);
  }

  /** The schema files operator metadata v2 lists for a store. */
  private static List<String> schemaFiles(
      Path opDir, String storeName, long batchId, Configuration hadoopConf) {
    Option<OperatorStateMetadata> read = OperatorMetadataFiles.read(opDir, hadoopConf, 2, batchId);
    if (read.isEmpty() || !(read.get() instanceof OperatorStateMetadataV2 metadata)) {
      throw new IllegalStateException("no operator metadata v2");
    }
    List<String> files = new ArrayList<>();
    for (StateStoreMetadataV2 store : metadata.stateStoreInfo()) {
      if (store.storeName().equals(storeName))
        files.addAll(CollectionConverters.asJava(store.stateSchemaFilePaths()));
    }
    return files;
  }

  /**
   * The schema files as found: a path that no longer exists (the checkpoint was copied or a
   * savepoint moved, and operator metadata v2 records absolute paths) is looked up under this
   * checkpoint's own {@code state/<op>/_stateSchema/} folder.
   */
  private static List<String> relocated(
      String checkpoint, Operator op, List<String> files, Configuration hadoopConf) {
    List<String> out = new ArrayList<>();
    Path home =
        new Path(new Path(new Path(checkpoint, "state"), Long.toString(op.id())), "_stateSchema");
    for (String file : files) {
      String found = file;
      int at = file.indexOf("/_stateSchema/");
      try {
        Path path = new Path(file);
        if (at >= 0 && !path.getFileSystem(hadoopConf).exists(path)) {
          Path local = new Path(home, file.substring(at + "/_stateSchema/".length()));
          if (local.getFileSystem(hadoopConf).exists(local)) {
            found = local.getFileSystem(hadoopConf).makeQualified(local).toString();
          }
        }
      } catch (java.io.IOException | RuntimeException e) {
        // keep the recorded path: reading it reports what is wrong
      }
      out.add(found);
    }
    return out;
  }

  /** The column family schemas in the schema files, read as Spark's StateRewriter reads them. */
  private static List<StateStoreColFamilySchema> readSchemas(
      String checkpoint,
      Operator op,
      String storeName,
      List<String> files,
      Configuration hadoopConf) {
    List<Path> paths = files.stream().map(Path::new).toList();
    StateStoreProviderId id =
        new StateStoreProviderId(
            new StateStoreId(
                new Path(checkpoint, "state").toString(),
                op.id(),
                StateStore.PARTITION_ID_TO_CHECK_SCHEMA(),
                storeName),
            UUID.randomUUID());
    StateSchemaCompatibilityChecker checker =
        ScalaDefaults.construct(
            StateSchemaCompatibilityChecker.class,
            id,
            hadoopConf,
            CollectionConverters.asScala(paths).toList());
    List<StateStoreColFamilySchema> schemas = CollectionConverters.asJava(checker.readSchemaFile());
    if (schemas.isEmpty()) throw new IllegalStateException("no column family schema");
    return schemas;
  }

  private static RuntimeException damaged(
      String checkpoint, Operator op, long batchId, String file, RuntimeException cause) {
    if (Errors.isSavepointError(cause)) return cause;
    String missing = MovedSchemaFiles.missingElsewhere(checkpoint, cause);
    if (missing != null) return Errors.movedCheckpoint(checkpoint, op.uid(), missing);
    return Errors.corruptFile(
        checkpoint,
        file,
        "batch " + batchId,
        cause,
        "Restore the"
            + " operator's _metadata and _stateSchema files from a copy of the checkpoint.");
  }

  /** Spark's StateRewriter fills a missing key encoder spec the same way (no prefix key). */
  private static StateStoreColFamilySchema withEncoderSpec(StateStoreColFamilySchema schema) {
    if (schema.keyStateEncoderSpec().isDefined()) return schema;
    return new StateStoreColFamilySchema(
        schema.colFamilyName(),
        schema.keySchemaId(),
        schema.keySchema(),
        schema.valueSchemaId(),
        schema.valueSchema(),
        Option.apply(new NoPrefixKeyStateEncoderSpec(schema.keySchema())),
        schema.userKeyEncoderSchema());
  }

  /** The schema of column family {@code name}, or null. */
  public StateStoreColFamilySchema schema(String name) {
    return schemas.get(name);
  }

  public List<String> names() {
    return new ArrayList<>(schemas.keySet());
  }

  public boolean isMultiValued(String name) {
    return multiValued.contains(name);
  }

  /**
   * The grouping key schema of the store (the key of any state variable's column family, or
   * the {@code key} field of a composite key), used as the default column family's key.
   */
  public StructType groupingKeySchema() {
    for (StateStoreColFamilySchema schema : schemas.values()) {
      StructType key = schema.keySchema();
      if (key.getFieldIndex("key").isDefined()
          && key.apply("key").dataType() instanceof StructType inner) {
        return inner;
      }
    }
    return schemas.values().iterator().next().keySchema();
  }

  /**
   * The schema provider the query's own store gets (Spark's StateRewriter builds the same one
   * from the schema files).
   */
  public Option<StateSchemaProvider> schemaProvider(
      String stateLocation, Configuration hadoopConf) {
    if (schemaFiles.isEmpty()) return Option.empty();
    return Option.apply(
        new InMemoryStateSchemaProvider(
            StateSchemaMetadata$.MODULE$.createStateSchemaMetadata(
                stateLocation, hadoopConf, CollectionConverters.asScala(schemaFiles).toList())));
  }

  /** Registers every column family on an opened store, as the query's state variables do. */
  public void register(StateStore store) {
    for (StateStoreColFamilySchema schema : schemas.values()) {
      String name = schema.colFamilyName();
      KeyStateEncoderSpec spec = schema.keyStateEncoderSpec().get();
      store.createColFamilyIfAbsent(
          name,
          schema.keySchema(),
          schema.valueSchema(),
          spec,
          isMultiValued(name),
          name.startsWith("$")); // Spark's rule for internal families (isInternalColFamily)
    }
  }
}
