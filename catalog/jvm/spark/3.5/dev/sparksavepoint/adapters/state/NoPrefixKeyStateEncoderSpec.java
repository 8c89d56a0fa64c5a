package dev.sparksavepoint.adapters.state;

import org.apache.spark.sql.types.StructType;

/** Keys encoded whole (stands in for 4.0's; a 3.5 store encodes every key so). */
public record NoPrefixKeyStateEncoderSpec(StructType keySchema) implements KeyStateEncoderSpec {}
