package dev.sparksavepoint.adapters.state;

import scala.Function0;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.runtime.BoxedUnit;

/** An iterator over a store that releases what it holds when closed (Spark 4.0's). */
public final class StateStoreIterator<A> extends AbstractIterator<A> {
  private final Iterator<A> iterator;
  private final Function0<BoxedUnit> onClose;

  public StateStoreIterator(Iterator<A> iterator, Function0<BoxedUnit> onClose) {
    this.iterator = iterator;
    this.onClose = onClose;
  }

  StateStoreIterator(Iterator<A> iterator) {
    this(iterator, () -> BoxedUnit.UNIT);
  }

  @Override
  public boolean hasNext() {
    return iterator.hasNext();
  }

  @Override
  public A next() {
    return iterator.next();
  }

  /** Releases what the iterator holds. */
  public void close() {
    onClose.apply();
  }
}
