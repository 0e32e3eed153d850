package io.allot.route;

import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A member in a process of its own, for the SIGKILL test: serves {@link Loopback#WHO} on a loopback port, registers
 * in {@code args[1]} of store {@code args[0]} with a lease of {@code args[2]} ms, renews it every third of that, and
 * prints {@code READY <id>}. Runs until killed.
 */
public final class ChildMember {
  public static void main(String[] args) throws Exception {
    Store store = Stores.open(args[0]);
    Duration ttl = Duration.ofMillis(Long.parseLong(args[2]));
    String[] id = new String[1];
    ServerServiceDefinition def = ServerServiceDefinition.builder("allot.test.Echo")
        .addMethod(Loopback.WHO, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(id[0]);
          obs.onCompleted();
        })).build();
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(def).build()
        .start();
    id[0] = "127.0.0.1:" + server.getPort();
    Membership m = store.membership(args[1]);
    long session = m.register(id[0], MemberMeta.DEFAULT.with("version", "child"), ttl);
    // renewed on a scheduler thread (not a daemon: it keeps the process up until it is killed)
    java.util.concurrent.Executors.newSingleThreadScheduledExecutor().scheduleAtFixedRate(
        () -> m.renew(id[0], session, ttl), ttl.toMillis() / 3, ttl.toMillis() / 3,
        java.util.concurrent.TimeUnit.MILLISECONDS);
    System.out.println("READY " + id[0]); // the parent test reads this line: the child's output protocol
    System.out.flush();
  }
}
