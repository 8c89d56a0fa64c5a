package dev.sparksavepoint.checkpoint;

/**
 * Where a state table comes from: the checkpoint, the operator, the state's name and reader
 * reference, and the batch it was loaded at. Writes start from here
 * ({@code write.WritePlan}).
 */
public record TableOrigin(
    String checkpoint, Operator operator, String state, StateRef ref, long batchId) {}
