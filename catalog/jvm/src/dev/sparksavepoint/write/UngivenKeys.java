package dev.sparksavepoint.write;

import dev.sparksavepoint.read.HdfsFiles;
import dev.sparksavepoint.store.HdfsWalkMap;
import dev.sparksavepoint.store.StatePartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering;
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering$;
import org.apache.spark.sql.execution.UnsafeExternalRowSorter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The stored keys of a partition a replace was not given, which it removes: found while the
 * given keys arrive ({@link #given}), and at the end ({@link #rest}).
 *
 * <ul>
 *   <li>{@link #sorted}: the partition's keys are sorted first, by Spark's external sorter
 *       (memory-managed, spilling to disk), in the order the write's rows arrive in (ascending
 *       by key); a walk through both finds the stored keys between two given ones. Nothing is
 *       kept per key on the heap: a 5M-key MERGE runs in a small heap.
 *   <li>{@link #walked}: as sorted, with every stored key's value, for a partition whose map
 *       knows only the entry the walk is at (HDFS-backed: no entry of it is held on the heap).
 *   <li>{@link #remembered}: the given keys are kept in a set and every stored key is checked
 *       against it at the end (a dry run or a transaction's statement, whose reads see staged
 *       changes; kinds whose rows do not arrive in their stored key's order).
 * </ul>
 */
abstract class UngivenKeys implements AutoCloseable {
  /** Called with each given key (copied), in the order the rows arrive. */
  abstract void given(UnsafeRow key, Consumer<UnsafeRow> drop);

  /** Calls {@code drop} with every stored key not given, after the last given key. */
  abstract void rest(Consumer<UnsafeRow> drop);

  @Override
  public void close() {}

  /** Every stored key of {@code family} is ungiven: nothing was given (emptying a partition). */
  static UngivenKeys none(StatePartition store, String family) {
    return new Remembered(store, family);
  }

  /** The set-based finder, for {@code store}'s {@code family}. */
  static UngivenKeys remembered(StatePartition store, String family) {
    return new Remembered(store, family);
  }

  /**
   * The sorting finder, for {@code store}'s {@code family} whose keys are rows of
   * {@code keySchema}; must run in a Spark task (the sorter's memory is the task's).
   */
  static UngivenKeys sorted(StatePartition store, String family, StructType keySchema) {
    return new Sorted(store, family, keySchema);
  }

  private static final class Remembered extends UngivenKeys {
    private final StatePartition store;
    private final String family;
    private final Set<UnsafeRow> given = new HashSet<>();

    Remembered(StatePartition store, String family) {
      this.store = store;
      this.family = family;
    }

    @Override
    void given(UnsafeRow key, Consumer<UnsafeRow> drop) {
      given.add(key);
    }

    @Override
    void rest(Consumer<UnsafeRow> drop) {
      for (UnsafeRow key : store.keys(family)) {
        if (!given.contains(key)) drop.accept(key);
      }
    }
  }

  /**
   * The walking finder of a replace into an HDFS-backed partition opened by
   * {@link StatePartition#openWalked}: its stored entries (keys and values, streamed from its
   * files) are sorted as {@link #sorted} sorts keys, and as the walk passes each key it tells the
   * partition's map the stored value ({@link dev.sparksavepoint.store.HdfsWalkMap#at}): of a
   * stored key before it is dropped, of a given key (or none) before the row is applied. Must
   * run in a Spark task.
   */
  static UngivenKeys walked(
      StatePartition.Walked walked, StructType keySchema, StructType valueSchema) {
    return new Sorted(walked, keySchema, valueSchema.size());
  }

  private static final class Sorted extends UngivenKeys {
    private final LazilyGeneratedOrdering ordering;
    private final UnsafeExternalRowSorter sorter;
    private Iterator<InternalRow> stored;

    /** The fields of a key; a walk's sorted rows hold them, then the key's and value's bytes. */
    private final int keyFields;

    /** A walk's map, told where the walk is; null when only keys are sorted. */
    private final HdfsWalkMap map;

    /** The value fields of a walk's stored entries. */
    private final int valueFields;

    /** The smallest stored key not yet walked past (copied), or null when none is left. */
    private UnsafeRow next;

    /** {@link #next}'s stored value (a walk only). */
    private UnsafeRow nextValue;

    /** The given key before, to check that keys arrive in order. */
    private UnsafeRow previous;

    Sorted(StatePartition store, String family, StructType keySchema) {
      this(keySchema, keySchema, null, 0);
      store.forEachKey(family, this::insert);
      finishSorting();
    }

    Sorted(StatePartition.Walked walked, StructType keySchema, int valueFields) {
      this(
          keySchema,
          keySchema.add("__key", DataTypes.BinaryType).add("__value", DataTypes.BinaryType),
          walked.map(),
          valueFields);
      UnsafeProjection withBytes = withBytes(keySchema);
      Object[] bytes = new Object[2];
      JoinedRow joined = new JoinedRow();
      long entries = 0;
      HdfsFiles.Entries e = walked.stored();
      while (e.next()) {
        bytes[0] = e.key().getBytes();
        bytes[1] = e.value().getBytes();
        insert(withBytes.apply(joined.apply(e.key(), new GenericInternalRow(bytes))));
        entries++;
      }
      walked.map().stored(entries);
      finishSorting();
    }

    private Sorted(StructType keySchema, StructType rows, HdfsWalkMap map, int valueFields) {
      this.ordering = LazilyGeneratedOrdering$.MODULE$.forSchema(keySchema);
      this.keyFields = keySchema.size();
      this.map = map;
      this.valueFields = valueFields;
      UnsafeExternalRowSorter.PrefixComputer noPrefix =
          new UnsafeExternalRowSorter.PrefixComputer() {
            private final Prefix zero = new Prefix();

            @Override
            public Prefix computePrefix(InternalRow row) {
              return zero;
            }
          };
      try {
        this.sorter =
            UnsafeExternalRowSorter.create(
                rows,
                ordering,
                PrefixComparators.LONG,
                noPrefix,
                SparkEnv.get().memoryManager().pageSizeBytes(),
                false);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * A walk's sorted row: the key's fields (the ordering compares them), then the key's and the
     * value's bytes exactly as stored (what the walk hands on is never re-encoded).
     */
    private static UnsafeProjection withBytes(StructType keySchema) {
      List<Expression> fields = new ArrayList<>();
      StructField[] keys = keySchema.fields();
      for (int i = 0; i < keys.length; i++) {
        fields.add(new BoundReference(i, keys[i].dataType(), keys[i].nullable()));
      }
      fields.add(new BoundReference(keys.length, DataTypes.BinaryType, false));
      fields.add(new BoundReference(keys.length + 1, DataTypes.BinaryType, false));
      return UnsafeProjection.create(CollectionConverters.asScala(fields).toList());
    }

    private void finishSorting() {
      try {
        this.stored = sorter.sort();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      advance();
    }

    private void insert(UnsafeRow row) {
      try {
        sorter.insertRow(row);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void advance() {
      if (!stored.hasNext()) {
        next = null;
        nextValue = null;
        return;
      }
      UnsafeRow row = (UnsafeRow) stored.next();
      if (map == null) {
        next = row.copy();
        return;
      }
      next = rowOf(row.getBinary(keyFields), keyFields);
      nextValue = rowOf(row.getBinary(keyFields + 1), valueFields);
    }

    private static UnsafeRow rowOf(byte[] bytes, int fields) {
      UnsafeRow row = new UnsafeRow(fields);
      row.pointTo(bytes, bytes.length);
      return row;
    }

    /** A walk is at a key whose stored value is {@code value} (null: none). */
    private void at(UnsafeRow key, UnsafeRow value) {
      if (map != null) map.at(key, value);
    }

    @Override
    void given(UnsafeRow key, Consumer<UnsafeRow> drop) {
      if (previous != null && ordering.compare(previous, key) >= 0) {
        throw new IllegalStateException(
            "[SAVEPOINT_INTERNAL] the rows of a replace did not arrive in their key's order");
      }
      previous = key;
      while (next != null) {
        int c = ordering.compare(next, key);
        if (c > 0) break;
        if (c == 0) {
          at(key, nextValue);
          advance();
          return;
        }
        at(next, nextValue);
        drop.accept(next);
        advance();
      }
      at(key, null);
    }

    @Override
    void rest(Consumer<UnsafeRow> drop) {
      while (next != null) {
        at(next, nextValue);
        drop.accept(next);
        advance();
      }
    }

    @Override
    public void close() {
      sorter.cleanupResources();
    }
  }
}
