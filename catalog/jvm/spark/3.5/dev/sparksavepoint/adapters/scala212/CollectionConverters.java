package dev.sparksavepoint.adapters.scala212;

import scala.collection.JavaConverters;

/**
 * The conversions between Java and Scala collections the shared sources make with Scala 2.13's
 * {@code scala.jdk.javaapi.CollectionConverters}, for Scala 2.12 (Spark 3.5), which has only
 * {@code scala.collection.JavaConverters}: its jar is compiled with this class in that one's
 * place ({@code relocations.txt}).
 */
public final class CollectionConverters {
  private CollectionConverters() {}

  /** A Java view of a Scala sequence. */
  public static <A> java.util.List<A> asJava(scala.collection.Seq<A> seq) {
    return JavaConverters.seqAsJavaList(seq);
  }

  /** A Java view of a Scala map. */
  public static <K, V> java.util.Map<K, V> asJava(scala.collection.Map<K, V> map) {
    return JavaConverters.mapAsJavaMap(map);
  }

  /** A Java view of a Scala iterator. */
  public static <A> java.util.Iterator<A> asJava(scala.collection.Iterator<A> iterator) {
    return JavaConverters.asJavaIterator(iterator);
  }

  /** A Scala view of a Java list. */
  public static <A> scala.collection.mutable.Buffer<A> asScala(java.util.List<A> list) {
    return JavaConverters.asScalaBuffer(list);
  }

  /** A Scala view of a Java map. */
  public static <K, V> scala.collection.mutable.Map<K, V> asScala(java.util.Map<K, V> map) {
    return JavaConverters.mapAsScalaMap(map);
  }

  /** A Scala view of a Java iterator. */
  public static <A> scala.collection.Iterator<A> asScala(java.util.Iterator<A> iterator) {
    return JavaConverters.asScalaIterator(iterator);
  }
}
