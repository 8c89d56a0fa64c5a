package dev.sparksavepoint.write;

import dev.sparksavepoint.store.StatePartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering;
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering$;
import org.apache.spark.sql.execution.UnsafeExternalRowSorter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators;
import scala.collection.Iterator;

/**
 * The stored keys of a partition a replace was not given, which it removes: found while the
 * given keys arrive ({@link #given}), and at the end ({@link #rest}).
 *
 * <ul>
 *   <li>{@link #sorted}: the partition's keys are sorted first, by Spark's external sorter
 *       (memory-managed, spilling to disk), in the order the write's rows arrive in (ascending
 *       by key); a walk through both finds the stored keys between two given ones. Nothing is
 *       kept per key on the heap: a 5M-key MERGE runs in a small heap.
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

  private static final class Sorted extends UngivenKeys {
    private final LazilyGeneratedOrdering ordering;
    private final UnsafeExternalRowSorter sorter;
    private final Iterator<InternalRow> stored;

    /** The smallest stored key not yet walked past (copied), or null when none is left. */
    private UnsafeRow next;

    /** The given key before, to check that keys arrive in order. */
    private UnsafeRow previous;

    Sorted(StatePartition store, String family, StructType keySchema) {
      this.ordering = LazilyGeneratedOrdering$.MODULE$.forSchema(keySchema);
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
                keySchema,
                ordering,
                PrefixComparators.LONG,
                noPrefix,
                SparkEnv.get().memoryManager().pageSizeBytes(),
                false);
        store.forEachKey(family, key -> insert(key));
        this.stored = sorter.sort();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      advance();
    }

    private void insert(UnsafeRow key) {
      try {
        sorter.insertRow(key);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void advance() {
      next = stored.hasNext() ? ((UnsafeRow) stored.next()).copy() : null;
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
        if (c > 0) return;
        if (c < 0) drop.accept(next);
        advance();
      }
    }

    @Override
    void rest(Consumer<UnsafeRow> drop) {
      while (next != null) {
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
