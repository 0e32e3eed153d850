package io.allot.route;

import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.Store;
import io.allot.testkit.grpc.WhoService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/** Real Netty servers on loopback registered as members of a pool, and channels to {@code allot://pool}. */
final class Loopback implements AutoCloseable {
  /** Answers with the member id of the server. */
  static final MethodDescriptor<String, String> WHO = WhoService.who("allot.test.Echo");

  private static final java.util.concurrent.ScheduledExecutorService DELAYS =
      java.util.concurrent.Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "loopback-delays");
        t.setDaemon(true);
        return t;
      });

  final Store store;
  final String pool;
  final List<Member> members = new ArrayList<>();
  final List<ManagedChannel> channels = new ArrayList<>();

  Loopback(Store store, String pool) {
    this.store = store;
    this.pool = pool;
  }

  /** One member: a server, its registration, the units it owns (for its owner check) and its call count. */
  final class Member extends WhoService.WhoMember {
    final Set<String> owned = ConcurrentHashMap.newKeySet();
    final AtomicLong served = new AtomicLong();
    /** The current registration: written by the test thread, read by the renewal on {@code DELAYS}. */
    volatile long session;
    /** Renews the lease while registered, as a live member does; null when deregistered (guarded by this). */
    private java.util.concurrent.ScheduledFuture<?> renewal;

    Member(Server server) {
      super(server);
    }

    @Override
    protected void called() {
      served.incrementAndGet();
    }

    Membership membership() {
      return store.membership(pool);
    }

    /**
     * Registers and keeps the lease renewed every third of {@code ttl} until {@link #deregister}: a test that runs
     * longer than one lease on a loaded machine (seen: 32 s against a 30 s lease, so "no live member") still has a
     * live fleet.
     */
    synchronized void register(MemberMeta meta, Duration ttl) {
      session = membership().register(id, meta, ttl);
      cancelRenewal();
      long every = Math.max(1, ttl.toMillis() / 3);
      renewal = DELAYS.scheduleWithFixedDelay(() -> {
        try {
          membership().renew(id, session, ttl);
        } catch (RuntimeException ignored) {
          // the store may be closed already; the next round tries again
        }
      }, every, every, TimeUnit.MILLISECONDS);
    }

    synchronized void deregister() {
      cancelRenewal();
      membership().deregister(id, session);
    }

    private void cancelRenewal() {
      if (renewal != null) {
        renewal.cancel(false);
        renewal = null;
      }
    }

    /** Deregisters and stops the server. */
    void stop() {
      deregister();
      server.shutdownNow();
    }
  }

  /** Starts a server (with an owner check over its {@link Member#owned} units and {@code ownerOf}) and registers it. */
  Member start(MemberMeta meta, Duration ttl, Function<String, String> ownerOf) {
    Member[] self = new Member[1];
    Server s = WhoService.start(WHO, () -> self[0], DELAYS, def -> ownerOf == null ? def
        : ServerInterceptors.intercept(def, new OwnerCheckInterceptor(u -> self[0].owned.contains(u), ownerOf)));
    Member m = new Member(s);
    self[0] = m;
    m.register(meta, ttl);
    members.add(m);
    return m;
  }

  Member start(MemberMeta meta) {
    return start(meta, Duration.ofSeconds(30), null);
  }

  /** A channel to {@code allot://pool} with {@code policy} and its config, and the re-route interceptor. */
  ManagedChannel channel(String policy, Map<String, ?> config, OwnerRetryInterceptor retry) {
    return channel("allot://" + pool, policy, config, retry);
  }

  ManagedChannel channel(String target, String policy, Map<String, ?> config, OwnerRetryInterceptor retry) {
    NettyChannelBuilder b = NettyChannelBuilder.forTarget(target).usePlaintext()
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)
        .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, config))));
    if (retry != null) {
      b.intercept(retry);
    }
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  /**
   * One call; a deadline given in {@code options} is kept (it used to be replaced by 5 s, which undid FailuresTest's
   * 30 s for a first call), else 30 s: no test here is about speed, and a loaded 2-core machine is slow.
   */
  static String who(io.grpc.Channel ch, CallOptions options) {
    CallOptions o = options.getDeadline() != null ? options : options.withDeadlineAfter(30, TimeUnit.SECONDS);
    return ClientCalls.blockingUnaryCall(ch, WHO, o, "hi");
  }

  /** Calls until every member in {@code ids} has answered at least once. */
  static void warm(io.grpc.Channel ch, java.util.Collection<String> ids) {
    Set<String> seen = new java.util.HashSet<>();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!seen.containsAll(ids)) {
      if (System.nanoTime() > until) {
        throw new AssertionError("not every member answered: " + seen + " of " + ids);
      }
      seen.add(who(ch, CallOptions.DEFAULT.withWaitForReady()));
    }
  }

  void resetCounts() {
    members.forEach(m -> m.served.set(0));
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
    for (Member m : members) {
      try {
        m.deregister();
      } catch (RuntimeException ignored) {
        // the store may be closed already
      }
      m.server.shutdownNow();
    }
  }
}
