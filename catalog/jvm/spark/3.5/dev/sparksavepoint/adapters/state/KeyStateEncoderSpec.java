package dev.sparksavepoint.adapters.state;

/** How a column family encodes its keys (transformWithState; stands in for 4.0's). */
public interface KeyStateEncoderSpec {}
