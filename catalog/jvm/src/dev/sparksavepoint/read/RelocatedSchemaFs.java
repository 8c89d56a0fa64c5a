package dev.sparksavepoint.read;

import dev.sparksavepoint.conf.Settings;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.AbstractFileSystem;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FilterFs;
import org.apache.hadoop.fs.Path;

/**
 * The file system Spark's state reader gets for the scheme of a moved checkpoint's recorded state
 * schema paths ({@code fs.AbstractFileSystem.<scheme>.impl}, set only in the session clone that
 * runs the reader, see {@link ReaderSession}). It is the scheme's own file system, except for paths
 * under the recorded checkpoint root ({@code Settings.RELOCATED_SCHEMA_FROM}): those are read under
 * the checkpoint they were copied to ({@code Settings.RELOCATED_SCHEMA_TO}), where its own
 * {@code state/<op>/_stateSchema/} files are. Only opening and file status are redirected: Spark
 * reads schema files and checks that they exist, nothing else, and nothing is ever written through
 * it.
 */
public final class RelocatedSchemaFs extends FilterFs {
  private final String from;
  private final Path to;
  private final Configuration plain;

  public RelocatedSchemaFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    this(uri, conf, plain(uri, conf));
  }

  private RelocatedSchemaFs(URI uri, Configuration conf, Configuration plain)
      throws IOException, URISyntaxException {
    super(AbstractFileSystem.createFileSystem(uri, plain));
    this.from = conf.get(Settings.RELOCATED_SCHEMA_FROM);
    this.to = new Path(conf.get(Settings.RELOCATED_SCHEMA_TO));
    this.plain = plain;
  }

  /** {@code conf} with the scheme's own file system class back in place. */
  private static Configuration plain(URI uri, Configuration conf) {
    Configuration plain = new Configuration(conf);
    plain.set(implKey(uri.getScheme()), conf.get(Settings.RELOCATED_SCHEMA_DELEGATE));
    return plain;
  }

  /** The setting that names the {@code AbstractFileSystem} class of {@code scheme}. */
  static String implKey(String scheme) {
    return "fs.AbstractFileSystem." + scheme + ".impl";
  }

  /**
   * Where {@code file} is read from: under {@code Settings.RELOCATED_SCHEMA_TO} when recorded
   * under {@code Settings.RELOCATED_SCHEMA_FROM}.
   */
  private Path relocated(Path file) {
    String path = Path.getPathWithoutSchemeAndAuthority(file).toString();
    if (from == null || !path.startsWith(from + "/state/")) return null;
    return new Path(to, path.substring(from.length() + 1));
  }

  @Override
  public FSDataInputStream open(Path f) throws IOException {
    Path moved = relocated(f);
    return moved == null
        ? super.open(f)
        : FileContext.getFileContext(moved.toUri(), plain).open(moved);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    Path moved = relocated(f);
    return moved == null
        ? super.open(f, bufferSize)
        : FileContext.getFileContext(moved.toUri(), plain).open(moved, bufferSize);
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    Path moved = relocated(f);
    return moved == null
        ? super.getFileStatus(f)
        : FileContext.getFileContext(moved.toUri(), plain).getFileStatus(moved);
  }
}
