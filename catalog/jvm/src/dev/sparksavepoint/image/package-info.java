/**
 * Full images of state: every entry of a store partition put into an empty store and committed
 * as one version (an HDFS-backed {@code .snapshot}, a RocksDB {@code .zip}), by Spark's own
 * providers. INSERT OVERWRITE writes its rows this way
 * ({@link dev.sparksavepoint.image.ImageTarget}), and savepoint take, restore and upgrade copy
 * state this way ({@link dev.sparksavepoint.image.ImagePlan},
 * {@link dev.sparksavepoint.image.StateImage}), onto another operator id, partition count or
 * provider. Depends on {@code store}, {@code commit}, {@code read}, {@code checkpoint} and
 * {@code errors}.
 */
package dev.sparksavepoint.image;
