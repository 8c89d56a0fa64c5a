package dev.sparksavepoint.adapters.state;

import org.apache.spark.sql.types.StructType;
import scala.Option;

/** The schema of a column family (transformWithState; stands in for 4.0's). */
public record StateStoreColFamilySchema(
    String colFamilyName,
    int keySchemaId,
    StructType keySchema,
    int valueSchemaId,
    StructType valueSchema,
    Option<KeyStateEncoderSpec> keyStateEncoderSpec,
    Option<StructType> userKeyEncoderSchema) {}
