import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.net.InetSocketAddress;

/**
 * Temporal's time-skipping test server (io.temporal:temporal-test-server), bound to 127.0.0.1 only:
 * its own main (io.temporal.testserver.TestServer) listens on every interface. Run as a single-file
 * source program (`java -cp 'lib/*' LoopbackTestServer.java PORT [--enable-time-skipping]`, PORT 0 picks
 * a free one); prints `listening 127.0.0.1:PORT` once it serves, and exits when its stdin closes, so it
 * never outlives the process that started it.
 */
public class LoopbackTestServer {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    boolean timeSkipping = args.length > 1 && args[1].equals("--enable-time-skipping");
    // As TestServer.createPortBoundServer: the services lock time skipping until a client unlocks it.
    TestServicesStarter services = new TestServicesStarter(timeSkipping, 0);
    ServerBuilder<?> builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port));
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    Server server = builder.build().start();
    System.out.println("listening 127.0.0.1:" + server.getPort());
    System.out.flush();
    while (System.in.read() != -1) {}
    server.shutdownNow();
    services.close();
    System.exit(0);
  }
}
