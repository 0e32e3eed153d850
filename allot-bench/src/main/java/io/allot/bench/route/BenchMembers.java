package io.allot.bench.route;

import io.allot.route.AllotNameResolverProvider;
import io.allot.route.OwnerCheckInterceptor;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.testkit.grpc.WhoService;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Members of a pool for the route bench: real Netty servers on loopback answering with their member id. */
final class BenchMembers implements AutoCloseable {
  static final MethodDescriptor<String, String> WHO = WhoService.who("bench.Route");

  private final ScheduledExecutorService delays = Executors.newScheduledThreadPool(1, r -> {
    Thread t = new Thread(r, "bench-member-delays");
    t.setDaemon(true);
    return t;
  });
  final Store store;
  final String pool;
  final List<Member> members = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  BenchMembers(Store store, String pool) {
    this.store = store;
    this.pool = pool;
  }

  /** One member. */
  final class Member extends WhoService.WhoMember {
    final String version;
    /** The units it owns now; replaced whole by the bench's distributor. */
    volatile Set<String> owned = Set.of();
    long session;

    Member(Server server, String version) {
      super(server);
      this.version = version;
    }

    void stop() {
      server.shutdownNow();
      store.membership(pool).deregister(id, session);
    }
  }

  Member start(MemberMeta meta, long delayMillis, Function<String, String> ownerOf) {
    Member[] self = new Member[1];
    Server s = WhoService.start(WHO, () -> self[0], delays, def -> ownerOf == null ? def
        : ServerInterceptors.intercept(def, new OwnerCheckInterceptor(u -> self[0].owned.contains(u), ownerOf)));
    Member m = new Member(s, meta.version());
    m.delayMillis = delayMillis;
    self[0] = m;
    m.session = store.membership(pool).register(m.id, meta, Duration.ofMinutes(5));
    members.add(m);
    return m;
  }

  ManagedChannel channel(String target, String policy, Map<String, ?> config, ClientInterceptor... interceptors) {
    ManagedChannel c = NettyChannelBuilder.forTarget(target).usePlaintext()
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, config))))
        .intercept(interceptors).build();
    channels.add(c);
    return c;
  }

  /** Calls until every member of {@code ids} answered once. */
  static void warm(io.grpc.Channel ch, java.util.Collection<String> ids) {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!seen.containsAll(ids)) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("not every member answered: " + seen + " of " + ids);
      }
      seen.add(io.grpc.stub.ClientCalls.blockingUnaryCall(ch, WHO,
          CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(5, TimeUnit.SECONDS), "warm"));
    }
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
    for (Member m : members) {
      m.server.shutdownNow();
      try {
        store.membership(pool).deregister(m.id, m.session);
      } catch (RuntimeException ignored) {
        // best effort
      }
    }
    delays.shutdownNow();
  }
}
