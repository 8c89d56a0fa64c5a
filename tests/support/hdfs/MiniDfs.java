import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A MiniDFSCluster (one NameNode, one DataNode) on loopback for the tests of spark-savepoint.
 *
 * <p>{@code java -cp <minicluster jars>:<this class> MiniDfs <folder> <port>} formats a new
 * file system under {@code folder}, starts it with the NameNode's RPC on {@code port} (0: any
 * free port), prints {@code ready hdfs://127.0.0.1:<port>} once the DataNode has registered,
 * and shuts down when its standard input closes (or on SIGTERM). A line {@code restart-namenode}
 * on its input restarts the NameNode (same port, same data), then prints {@code restarted}.
 * Every server binds to loopback; permissions are off, so any local user may write; replication
 * is 1.
 */
public final class MiniDfs {
  private MiniDfs() {}

  public static void main(String[] args) throws Exception {
    File folder = new File(args[0]);
    int port = Integer.parseInt(args[1]);
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, folder.getAbsolutePath());
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.setBoolean("dfs.permissions.enabled", false);
    conf.setInt("dfs.replication", 1);
    conf.setLong("dfs.blocksize", 1024 * 1024);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, folder)
        .numDataNodes(1)
        .nameNodePort(port)
        .format(true)
        .checkDataNodeAddrConfig(true)
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
    cluster.waitActive();
    System.out.println("ready hdfs://127.0.0.1:" + cluster.getNameNodePort());
    System.out.flush();
    serveCommands(cluster);
    cluster.shutdown();
    System.exit(0);
  }

  /** Until the input ends (the test process closed the pipe or died): runs its commands. */
  private static void serveCommands(MiniDFSCluster cluster) {
    java.io.BufferedReader in =
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.trim().equals("restart-namenode")) {
          cluster.restartNameNode(true);
          System.out.println("restarted");
          System.out.flush();
        }
      }
    } catch (IOException e) {
      // the pipe broke: the test process is gone
    }
  }
}
