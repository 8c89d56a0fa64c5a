package dev.sparksavepoint.image;

import dev.sparksavepoint.checkpoint.FileDigests;
import dev.sparksavepoint.commit.PartitionCommit;
import java.io.Serializable;
import java.util.List;

/**
 * What one task of a state copy ({@link StateImage}) reports: the target store partition's
 * commit, and the size and SHA-256 of the files it wrote (paths relative to the target
 * checkpoint; empty unless the plan asks for them, {@link ImagePlan#withFileDigests}).
 */
public record CopiedPartition(PartitionCommit commit, List<FileDigests.Digest> files)
    implements Serializable {}
