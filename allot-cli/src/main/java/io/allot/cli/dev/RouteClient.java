package io.allot.cli.dev;

import io.allot.route.AllotNameResolverProvider;
import io.allot.route.AllotRouting;
import io.allot.route.LiveWeights;
import io.allot.route.OwnerRetryInterceptor;
import io.allot.store.Store;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The routing client of {@code allot dev}: two channels to {@code allot://<worker pool>}, found through the store
 * (no registry). One sends each call about a unit to that unit's owner ({@code allot_owner}, re-routed once by
 * {@link OwnerRetryInterceptor} when a member says "not mine"); the other splits calls between versions by the live
 * canary weights ({@code allot_canary}), set here to {@link #WEIGHTS} and editable while it runs. Counts the calls.
 * Thread-safe.
 */
final class RouteClient implements AutoCloseable {
  /** The live canary weights set at start. */
  static final Map<String, Integer> WEIGHTS = Map.of("v1", 90, "v2", 10);

  private final List<String> units;
  private final ManagedChannel owner;
  private final ManagedChannel canary;
  private final ScheduledExecutorService caller = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "allot-dev-router");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong ownerOk = new AtomicLong();
  private final AtomicLong canaryOk = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Map<String, AtomicLong> byVersion = new ConcurrentHashMap<>();

  /** @param units the worker pool's units, the keys the owner calls are about */
  RouteClient(Store store, DevNames names, List<String> units) {
    this.units = List.copyOf(units);
    String target = "allot://" + names.workerPool() + "?table=" + names.table();
    this.owner = NettyChannelBuilder.forTarget(target).usePlaintext()
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)
        .defaultServiceConfig(Map.of("loadBalancingConfig",
            List.of(Map.of("allot_owner", Map.of("fallback", "consistent_hash")))))
        .intercept(new OwnerRetryInterceptor()).build();
    this.canary = NettyChannelBuilder.forTarget(target).usePlaintext()
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)
        .defaultServiceConfig(Map.of("loadBalancingConfig",
            List.of(Map.of("allot_canary", Map.of("weights", Map.of("v1", 50.0, "v2", 50.0)))))).build();
    LiveWeights.set(store, names.workerPool(), WEIGHTS); // live weights win over the config's 50/50
  }

  /** Calls every {@code everyMillis}: one call to a random unit's owner, one canary call. */
  void start(long everyMillis) {
    caller.scheduleWithFixedDelay(this::callOnce, 0, everyMillis, TimeUnit.MILLISECONDS);
  }

  private void callOnce() {
    String unit = units.get(ThreadLocalRandom.current().nextInt(units.size()));
    call(owner, CallOptions.DEFAULT.withOption(AllotRouting.KEY, unit), ownerOk);
    call(canary, CallOptions.DEFAULT, canaryOk);
  }

  private void call(ManagedChannel ch, CallOptions options, AtomicLong ok) {
    try {
      String answer = ClientCalls.blockingUnaryCall(ch, WhoService.WHO,
          options.withDeadlineAfter(2, TimeUnit.SECONDS), "who");
      ok.incrementAndGet();
      if (ch == canary) {
        String version = answer.substring(answer.lastIndexOf(' ') + 1);
        byVersion.computeIfAbsent(version, v -> new AtomicLong()).incrementAndGet();
      }
    } catch (RuntimeException e) {
      failed.incrementAndGet(); // a member stopped by the chaos, before the resolver saw it leave
    }
  }

  /** One line: the calls so far. */
  String status() {
    StringBuilder v = new StringBuilder();
    new java.util.TreeMap<>(byVersion).forEach((k, n) -> v.append(v.length() == 0 ? "" : " ").append(k).append(' ')
        .append(n.get()));
    return String.format("route calls ok %d (to the owner %d, canary %d: %s), failed %d",
        ownerOk.get() + canaryOk.get(), ownerOk.get(), canaryOk.get(), v.length() == 0 ? "none yet" : v, failed.get());
  }

  @Override
  public void close() {
    caller.shutdownNow();
    owner.shutdownNow();
    canary.shutdownNow();
  }
}
