package io.allot.bench.route;

import io.allot.route.LiveWeights;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.bench.CommonOptions;
import io.allot.cli.StoreOption;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.LoadBalancer;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench route}: allot's routing policies against grpc-java's {@code round_robin} and the xds policies, in one
 * JVM: the cost of one pick, a slow backend under closed-loop load, route-to-owner during a handoff storm, and the
 * canary split. Real Netty servers on loopback for everything but the pick cost.
 */
@Command(
    name = "route",
    mixinStandardHelpOptions = false,
    sortOptions = false,
    description = {
      "gRPC routing: allot_* policies against grpc's round_robin and the xds policies.",
      "The xds policies: weighted_round_robin, least_request_experimental, ring_hash_experimental. Measured: pick",
      "cost, one slow backend of 5 (closed loop p99), owner routing during a handoff storm (first-hit share, extra",
      "hops), canary share over N calls."
    })
public final class RouteBench implements Callable<Integer> {
  @Mixin CommonOptions common;

  @Option(names = "--quick", description = "A short run (well under a minute): fewer picks, 3 s loads, 20,000 canary calls.")
  boolean quick;

  /** The store holding the pools. */
  @Mixin StoreOption store = new StoreOption("memory:");

  @Option(names = "--picks", paramLabel = "N", description = "Picks per measured round (default: 200,000 quick, "
      + "2,000,000 full).")
  Integer picksPerRound;

  @Option(names = "--seconds", paramLabel = "S", description = "Seconds of closed-loop load per policy (default: 3 "
      + "quick, 10 full).")
  Integer loadSeconds;

  @Option(names = "--events", paramLabel = "N", description = "Membership changes in the handoff storm (default: 6 "
      + "quick, 20 full).")
  Integer stormEvents;

  @Option(names = "--calls", paramLabel = "N", description = "Calls per canary run (default: 20,000 quick, 100,000 "
      + "full).")
  Integer canaryCalls;

  @Option(names = "--only", split = ",", paramLabel = "PART",
      description = "Run only these parts: resolver, picks, slow, owner, canary (default all).")
  List<String> only;

  private PrintWriter out;

  @Override
  public Integer call() throws Exception {
    out = common.out();
    // lets ring_hash_experimental hash a header (it reads the flag from the environment or a system property)
    if (System.getProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY") == null) {
      System.setProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY", "true");
    }
    Set<String> parts = only == null ? Set.of("resolver", "picks", "slow", "owner", "canary") : new HashSet<>(only);
    out.printf("bench route%s: store %s, %d cores, Java %s%n", quick ? " --quick" : "", store.uri(null),
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    try (Store store = this.store.open(null)) {
      if (parts.contains("resolver")) {
        resolverLatency(store);
      }
      if (parts.contains("picks")) {
        picks();
      }
      if (parts.contains("slow")) {
        slowBackend(store);
      }
      if (parts.contains("owner")) {
        new OwnerStorm(out, stormEvents != null ? stormEvents : quick ? 6 : 20, quick ? 400 : 500).run(store);
      }
      if (parts.contains("canary")) {
        canary(store);
      }
    }
    out.flush();
    return 0;
  }

  // ---------------------------------------------------------------- resolver

  /** From a membership write returning to the resolver's listener seeing the change: joins and deregistrations. */
  private void resolverLatency(Store store) throws InterruptedException {
    String pool = "bench-resolver-" + System.nanoTime();
    io.allot.store.Membership m = store.membership(pool);
    long base = m.register("127.0.0.1:1", MemberMeta.DEFAULT, Duration.ofMinutes(5));
    java.util.concurrent.BlockingQueue<long[]> seen = new java.util.concurrent.LinkedBlockingQueue<>();
    io.grpc.NameResolver.Args args = io.grpc.NameResolver.Args.newBuilder()
        .setDefaultPort(443)
        .setProxyDetector(addr -> null)
        .setSynchronizationContext(new io.grpc.SynchronizationContext(
            (t, e) -> org.slf4j.LoggerFactory.getLogger(RouteBench.class).error("resolver failed on the sync context", e)))
        .setServiceConfigParser(new io.grpc.NameResolver.ServiceConfigParser() {
          @Override
          public io.grpc.NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> raw) {
            return io.grpc.NameResolver.ConfigOrError.fromConfig(raw);
          }
        })
        .setChannelLogger(new io.grpc.ChannelLogger() {
          @Override
          public void log(ChannelLogLevel level, String message) {}

          @Override
          public void log(ChannelLogLevel level, String messageFormat, Object... a) {}
        })
        .setArg(io.allot.route.AllotNameResolverProvider.STORE, store)
        .build();
    io.grpc.NameResolver r = new io.allot.route.AllotNameResolverProvider()
        .newNameResolver(java.net.URI.create("allot://" + pool), args);
    r.start(new io.grpc.NameResolver.Listener2() {
      @Override
      public void onResult(io.grpc.NameResolver.ResolutionResult result) {
        onResult2(result);
      }

      @Override
      public io.grpc.Status onResult2(io.grpc.NameResolver.ResolutionResult result) {
        seen.add(new long[] {System.nanoTime(), result.getAddressesOrError().getValue().size()});
        return io.grpc.Status.OK;
      }

      @Override
      public void onError(io.grpc.Status error) {}
    });
    try {
      waitFor(seen, 1);
      int events = quick ? 24 : 100;
      long[] micros = new long[events];
      for (int i = 0; i < events; i += 2) {
        String id = "127.0.0.1:" + (1000 + i);
        long t0 = System.nanoTime();
        long session = m.register(id, MemberMeta.DEFAULT, Duration.ofMinutes(5));
        micros[i] = (waitFor(seen, 2) - t0) / 1000;
        t0 = System.nanoTime();
        m.deregister(id, session);
        micros[i + 1] = (waitFor(seen, 1) - t0) / 1000;
      }
      Arrays.sort(micros);
      double p99 = micros[Math.min(events - 1, (int) Math.ceil(events * 0.99) - 1)] / 1000.0;
      out.printf("%nresolver: a join or deregistration (store write returned) -> the allot:// resolver's listener, "
              + "%d events: p50 %.1f ms, p99 %.1f ms, max %.1f ms (goal p99 <= 100 ms: %s)%n", events,
          micros[events / 2] / 1000.0, p99, micros[events - 1] / 1000.0, p99 <= 100 ? "met" : "MISSED");
      out.flush();
    } finally {
      r.shutdown();
      m.deregister("127.0.0.1:1", base);
    }
  }

  /** Waits for the first update listing {@code members} addresses; returns when it arrived (nanoTime). */
  private static long waitFor(java.util.concurrent.BlockingQueue<long[]> seen, int members)
      throws InterruptedException {
    while (true) {
      long[] u = seen.poll(10, TimeUnit.SECONDS);
      if (u == null) {
        throw new IllegalStateException("the resolver did not report " + members + " members within 10 s");
      }
      if (u[1] == members) {
        return u[0];
      }
    }
  }

  // ---------------------------------------------------------------- pick cost

  /** The policies whose pick cost is measured, by label (a label may add a variant after a space), with configs. */
  public static Map<String, Map<String, ?>> pickPolicies() {
    Map<String, Map<String, ?>> p = new LinkedHashMap<>();
    p.put("round_robin", Map.of());
    p.put("allot_weighted_round_robin", Map.of());
    p.put("allot_canary", Map.of("weights", Map.of("v1", 90.0, "v2", 10.0)));
    p.put("allot_canary sticky", Map.of("weights", Map.of("v1", 90.0, "v2", 10.0), "sticky", true));
    p.put("allot_least_request", Map.of());
    p.put("allot_consistent_hash", Map.of());
    p.put("allot_owner", Map.of());
    p.put("weighted_round_robin", Map.of());
    p.put("least_request_experimental", Map.of());
    p.put("ring_hash_experimental", Map.of("requestHashHeader", "allot-key"));
    return p;
  }

  /** ns per pick: the median of the rounds. */
  /** Where {@link #nsPerPick} leaves its results, so the JIT cannot drop the picks. */
  static volatile long blackhole;

  static double nsPerPick(PickHarness h, int rounds, int picks) {
    double[] ns = new double[rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < picks; i++) {
        LoadBalancer.PickResult pr = h.pick(i);
        sink += pr.getSubchannel() == null ? 1 : 0;
      }
      ns[r] = (System.nanoTime() - t0) / (double) picks;
    }
    blackhole = sink; // keeps the picks from being optimized away
    Arrays.sort(ns);
    return ns[rounds / 2];
  }

  private void picks() {
    int rounds = quick ? 5 : 11;
    int picks = picksPerRound != null ? picksPerRound : quick ? 200_000 : 2_000_000;
    for (int backends : new int[] {5, 50}) {
      out.printf("%npick cost, %d READY backends, 1024 keys, one thread (median of %d rounds of %,d picks; "
          + "every policy warmed first, so the pick call site is equally megamorphic for all):%n", backends, rounds, picks);
      Map<String, PickHarness> hs = new LinkedHashMap<>();
      pickPolicies().forEach((name, cfg) -> {
        try {
          hs.put(name, new PickHarness(name.replace(" sticky", ""), cfg, backends, 1024));
        } catch (RuntimeException e) {
          out.printf("  %-28s n/a: %s%n", name, e.getMessage());
        }
      });
      for (PickHarness h : hs.values()) {
        nsPerPick(h, 3, picks / 2); // warm-up of every policy before any is measured
      }
      double rr = Double.NaN;
      for (Map.Entry<String, PickHarness> e : hs.entrySet()) {
        double ns = nsPerPick(e.getValue(), rounds, picks);
        if (e.getKey().equals("round_robin")) {
          rr = ns;
        }
        boolean ours = e.getKey().startsWith("allot_");
        double ratio = ns / rr;
        out.printf("  %-28s %7.1f ns/pick  %5.2fx round_robin%s%n", e.getKey(), ns, ratio,
            ours ? (ratio <= 1.5 ? "  (goal <= 1.5x: met)" : "  (goal <= 1.5x: MISSED)") : "");
        e.getValue().shutdown();
      }
    }
    out.flush();
  }

  // ---------------------------------------------------------------- slow backend

  /** Latency percentiles of one closed-loop run. */
  record Load(String policy, long calls, double seconds, long errors, double p50, double p99, double p999,
      double slowShare) {}

  private Load closedLoop(BenchMembers fleet, String policy, Map<String, ?> config, int workers, Duration d,
      BenchMembers.Member slow) throws InterruptedException {
    ManagedChannel ch = fleet.channel("allot://" + fleet.pool, policy, config);
    BenchMembers.warm(ch, fleet.members.stream().map(m -> m.id).toList());
    long[][] lat = new long[workers][];
    int[] counts = new int[workers];
    long[] slowCalls = new long[workers];
    long[] errors = new long[workers];
    CountDownLatch done = new CountDownLatch(workers);
    long end = System.nanoTime() + d.toNanos();
    long t0 = System.nanoTime();
    for (int w = 0; w < workers; w++) {
      int me = w;
      lat[me] = new long[1 << 16];
      Thread t = new Thread(() -> {
        try {
          while (System.nanoTime() < end) {
            long s = System.nanoTime();
            try {
              String who = ClientCalls.blockingUnaryCall(ch, BenchMembers.WHO,
                  CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), "x");
              if (who.equals(slow.id)) {
                slowCalls[me]++;
              }
            } catch (StatusRuntimeException e) {
              errors[me]++;
            }
            if (counts[me] == lat[me].length) {
              lat[me] = Arrays.copyOf(lat[me], lat[me].length * 2);
            }
            lat[me][counts[me]++] = System.nanoTime() - s;
          }
        } finally {
          done.countDown();
        }
      }, "bench-route-load-" + w);
      t.setDaemon(true);
      t.start();
    }
    done.await();
    double secs = (System.nanoTime() - t0) / 1e9;
    ch.shutdownNow();
    int total = Arrays.stream(counts).sum();
    long[] all = new long[total];
    int at = 0;
    for (int w = 0; w < workers; w++) {
      System.arraycopy(lat[w], 0, all, at, counts[w]);
      at += counts[w];
    }
    Arrays.sort(all);
    return new Load(policy, total, secs, Arrays.stream(errors).sum(), pct(all, 0.50), pct(all, 0.99),
        pct(all, 0.999), Arrays.stream(slowCalls).sum() / (double) Math.max(1, total));
  }

  private static double pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
  }

  private void slowBackend(Store store) throws InterruptedException {
    Duration d = Duration.ofSeconds(loadSeconds != null ? loadSeconds : quick ? 3 : 10);
    int workers = 8;
    out.printf("%none slow backend of 5 (100 ms; the others 1 ms), closed loop, %d callers, %d s per policy:%n",
        workers, d.toSeconds());
    try (BenchMembers fleet = new BenchMembers(store, "bench-slow-" + System.nanoTime())) {
      BenchMembers.Member slow = fleet.start(MemberMeta.DEFAULT, 100, null);
      for (int i = 0; i < 4; i++) {
        fleet.start(MemberMeta.DEFAULT, 1, null);
      }
      Map<String, Load> runs = new LinkedHashMap<>();
      Map<String, Map<String, ?>> policies = new LinkedHashMap<>();
      policies.put("round_robin", Map.of());
      policies.put("allot_least_request", Map.of());
      policies.put("allot_least_request latencyAware", Map.of("latencyAware", true));
      policies.put("least_request_experimental", Map.of());
      for (Map.Entry<String, Map<String, ?>> p : policies.entrySet()) {
        String policy = p.getKey();
        try {
          Load l = closedLoop(fleet, policy.split(" ")[0], p.getValue(), workers, d, slow);
          runs.put(policy, l);
          out.printf("  %-32s %,8d calls %7.0f/s  p50 %6.2f ms  p99 %7.2f ms  p99.9 %7.2f ms  slow share %5.2f%%"
                  + "  errors %d%n", policy, l.calls(), l.calls() / l.seconds(), l.p50(), l.p99(), l.p999(),
              100 * l.slowShare(), l.errors());
        } catch (RuntimeException e) {
          out.printf("  %-28s n/a: %s%n", policy, e.getMessage());
        }
        out.flush();
      }
      Load rr = runs.get("round_robin");
      Load ours = runs.get("allot_least_request");
      Load grpc = runs.get("least_request_experimental");
      if (rr != null && ours != null) {
        double x = rr.p99() / ours.p99();
        out.printf("  allot_least_request p99 is %.1fx better than round_robin (goal >= 5x: %s)%n", x,
            x >= 5 ? "met" : "MISSED");
      }
      if (grpc != null && ours != null) {
        out.printf("  allot_least_request p99 %.2f ms vs grpc least_request_experimental %.2f ms (goal: at least as "
            + "good: %s)%n", ours.p99(), grpc.p99(), ours.p99() <= grpc.p99() * 1.05 ? "met" : "MISSED");
      }
    }
  }

  // ---------------------------------------------------------------- canary

  private void canary(Store store) throws InterruptedException {
    int calls = canaryCalls != null ? canaryCalls : quick ? 20_000 : 100_000;
    out.printf("%ncanary: members v1, v1, v2; %,d calls per run, 64 in flight:%n", calls);
    try (BenchMembers fleet = new BenchMembers(store, "bench-canary-" + System.nanoTime())) {
      fleet.start(MemberMeta.DEFAULT.with("version", "v1"), 0, null);
      fleet.start(MemberMeta.DEFAULT.with("version", "v1"), 0, null);
      BenchMembers.Member v2 = fleet.start(MemberMeta.DEFAULT.with("version", "v2"), 0, null);
      ManagedChannel ch = fleet.channel("allot://" + fleet.pool, "allot_canary",
          Map.of("weights", Map.of("v1", 90.0, "v2", 10.0)));
      BenchMembers.warm(ch, fleet.members.stream().map(m -> m.id).toList());
      share(ch, calls, v2.id, 0.10, "service config v1=90 v2=10");
      LiveWeights.set(store, fleet.pool, Map.of("v1", 70, "v2", 30));
      long t0 = System.nanoTime();
      while (true) { // until the live weights reached this client
        int n = 0;
        for (int i = 0; i < 10; i++) {
          n += call(ch, CallOptions.DEFAULT).equals(v2.id) ? 1 : 0;
        }
        if (n == 3) {
          break;
        }
        if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(10)) {
          throw new IllegalStateException("live weights did not reach the client in 10 s");
        }
      }
      out.printf("  live weights v1=70 v2=30 set with LiveWeights.set: in effect at the client after %.0f ms%n",
          (System.nanoTime() - t0) / 1e6);
      share(ch, calls, v2.id, 0.30, "live weights v1=70 v2=30");
      LiveWeights.set(store, fleet.pool, Map.of());
    }
  }

  private void share(ManagedChannel ch, int calls, String v2, double target, String what)
      throws InterruptedException {
    Semaphore inFlight = new Semaphore(64);
    AtomicLong onV2 = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    CountDownLatch done = new CountDownLatch(calls);
    for (int i = 0; i < calls; i++) {
      inFlight.acquire();
      ClientCall<String, String> c = ch.newCall(BenchMembers.WHO, CallOptions.DEFAULT.withDeadlineAfter(10,
          TimeUnit.SECONDS));
      ClientCalls.asyncUnaryCall(c, "x", new io.grpc.stub.StreamObserver<>() {
        @Override
        public void onNext(String who) {
          if (who.equals(v2)) {
            onV2.incrementAndGet();
          }
        }

        @Override
        public void onError(Throwable t) {
          failed.incrementAndGet();
          inFlight.release();
          done.countDown();
        }

        @Override
        public void onCompleted() {
          inFlight.release();
          done.countDown();
        }
      });
    }
    done.await();
    double share = onV2.get() / (double) calls;
    out.printf("  %-30s v2 share %6.3f%% (target %.0f%%, off by %.3f points; goal within 1: %s), errors %d%n", what,
        100 * share, 100 * target, 100 * Math.abs(share - target), Math.abs(share - target) <= 0.01 ? "met" : "MISSED",
        failed.get());
    out.flush();
  }

  /** One call of the bench's method on {@code ch}, with a 5 s deadline; returns the id of the member that answered. */
  static String call(Channel ch, CallOptions o) {
    return ClientCalls.blockingUnaryCall(ch, BenchMembers.WHO, o.withDeadlineAfter(5, TimeUnit.SECONDS), "x");
  }
}
