package io.allot.bench.route;

import io.allot.route.AllotNameResolverProvider;
import io.allot.route.OwnerCheckInterceptor;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
  static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
  static final MethodDescriptor<String, String> WHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("bench.Route/Who")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

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
  final class Member {
    final Server server;
    final String id;
    final String version;
    /** The units it owns now; replaced whole by the bench's distributor. */
    volatile Set<String> owned = Set.of();
    /** How long each call takes, ms (0: at once). */
    volatile long delayMillis;
    long session;

    Member(Server server, String version) {
      this.server = server;
      this.id = "127.0.0.1:" + server.getPort();
      this.version = version;
    }

    void stop() {
      server.shutdownNow();
      store.membership(pool).deregister(id, session);
    }
  }

  Member start(MemberMeta meta, long delayMillis, Function<String, String> ownerOf) {
    Member[] self = new Member[1];
    ServerServiceDefinition def = ServerServiceDefinition.builder("bench.Route")
        .addMethod(WHO, ServerCalls.asyncUnaryCall((req, obs) -> {
          Member me = self[0];
          Runnable answer = () -> {
            obs.onNext(me.id);
            obs.onCompleted();
          };
          if (me.delayMillis > 0) {
            delays.schedule(answer, me.delayMillis, TimeUnit.MILLISECONDS);
          } else {
            answer.run();
          }
        })).build();
    if (ownerOf != null) {
      def = ServerInterceptors.intercept(def, new OwnerCheckInterceptor(u -> self[0].owned.contains(u), ownerOf));
    }
    try {
      Server s = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(def)
          .directExecutor().build().start();
      Member m = new Member(s, meta.version());
      m.delayMillis = delayMillis;
      self[0] = m;
      m.session = store.membership(pool).register(m.id, meta, Duration.ofMinutes(5));
      members.add(m);
      return m;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
