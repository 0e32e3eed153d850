package io.allot.bench.route;

import io.allot.route.AllotRouting;
import io.allot.route.OwnerLookup;
import io.allot.route.OwnerRetryInterceptor;
import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.Tables;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The owner-storm part of {@code bench route}: 512 units on 5 members with owner checks, a member killed or added
 * every period, the table republished shortly after; {@code allot_owner} with the re-route interceptor. Prints the
 * share of calls whose first attempt reached the owner, in and outside the failover windows.
 *
 * @param out where the figures go
 * @param events membership changes (kills and adds, alternating)
 * @param periodMs time between two changes
 */
record OwnerStorm(PrintWriter out, int events, long periodMs) {
  /** Counts the attempts of one application call (the re-route interceptor's second attempt included). */
  static final CallOptions.Key<AtomicInteger> ATTEMPTS = CallOptions.Key.create("bench-attempts");

  private static final ClientInterceptor COUNT_ATTEMPTS = new ClientInterceptor() {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      AtomicInteger n = options.getOption(ATTEMPTS);
      if (n != null) {
        n.incrementAndGet();
      }
      return next.newCall(method, options);
    }
  };

  /** One call of the storm. */
  record Hit(long startNanos, int attempts, boolean ok) {}

  /** Runs the storm on a pool of {@code store} and prints its figures. */
  void run(Store store) throws InterruptedException {
    int units = 512;
    long reactionMs = 50; // the distributor's reaction to a membership change, simulated
    long settleMs = 100; // after a publication: the clients' resolvers read the new table
    int workers = 4;
    String pool = "bench-owner-" + System.nanoTime();
    String tableKey = pool + "-table";
    out.printf("%nowner routing in a handoff storm: %d units, 5 members, %d events every %d ms (kill or add a member; "
        + "the table follows %d ms later), %d callers:%n", units, events, periodMs, reactionMs, workers);
    Map<String, String> truth = new ConcurrentHashMap<>();
    try (BenchMembers fleet = new BenchMembers(store, pool)) {
      List<BenchMembers.Member> alive = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        alive.add(fleet.start(MemberMeta.DEFAULT, 0, truth::get));
      }
      String leaseName = Tables.leaseName(tableKey, pool);
      Lease lease = store.leadership().tryAcquire(leaseName, "bench", Duration.ofMinutes(10)).orElseThrow();
      Runnable publish = () -> {
        Map<String, MemberMeta> live = new LinkedHashMap<>();
        alive.forEach(m -> live.put(m.id, MemberMeta.DEFAULT));
        Map<String, List<String>> byMember = new HashMap<>();
        Map<String, String> owners = new HashMap<>();
        for (int u = 0; u < units; u++) {
          String owner = OwnerLookup.consistentHash(live, "u" + u);
          owners.put("u" + u, owner);
          byMember.computeIfAbsent(owner, x -> new ArrayList<>()).add("u" + u);
        }
        Map<String, String> fields = new HashMap<>();
        byMember.forEach((m, us) -> fields.put(m, String.join(",", us)));
        store.tables().publish(lease, tableKey, pool, fields);
        truth.putAll(owners); // the members hand over as the table says
        for (BenchMembers.Member m : alive) {
          m.owned = Set.copyOf(byMember.getOrDefault(m.id, List.of()));
        }
      };
      publish.run();
      OwnerRetryInterceptor retry = new OwnerRetryInterceptor();
      // the last interceptor runs first: the re-route wraps the attempt counter
      ManagedChannel ch = fleet.channel("allot://" + pool + "?table=" + tableKey, "allot_owner", Map.of(),
          COUNT_ATTEMPTS, retry);
      BenchMembers.warm(ch, alive.stream().map(m -> m.id).toList());

      List<long[]> windows = new ArrayList<>(); // [from, to] nanos
      List<List<Hit>> hits = new ArrayList<>();
      long stormEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(periodMs * (events + 1));
      CountDownLatch done = new CountDownLatch(workers);
      for (int w = 0; w < workers; w++) {
        List<Hit> mine = new ArrayList<>();
        hits.add(mine);
        Thread t = new Thread(() -> {
          try {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            while (System.nanoTime() < stormEnd) {
              String unit = "u" + r.nextInt(units);
              AtomicInteger attempts = new AtomicInteger();
              long s = System.nanoTime();
              boolean ok;
              try {
                RouteBench.call(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, unit).withOption(ATTEMPTS, attempts));
                ok = true;
              } catch (StatusRuntimeException e) {
                ok = false;
              }
              mine.add(new Hit(s, attempts.get(), ok));
            }
          } finally {
            done.countDown();
          }
        }, "bench-owner-caller-" + w);
        t.setDaemon(true);
        t.start();
      }
      int kills = 0;
      int adds = 0;
      for (int e = 0; e < events; e++) {
        Thread.sleep(periodMs - reactionMs);
        long from = System.nanoTime();
        if (e % 2 == 0 && alive.size() > 3) {
          BenchMembers.Member victim = alive.remove(ThreadLocalRandom.current().nextInt(alive.size()));
          victim.stop();
          kills++;
        } else {
          alive.add(fleet.start(MemberMeta.DEFAULT, 0, truth::get));
          adds++;
        }
        Thread.sleep(reactionMs);
        publish.run();
        windows.add(new long[] {from, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settleMs)});
      }
      done.await();
      store.leadership().release(lease);
      long calls = 0;
      long first = 0;
      long twoHops = 0;
      long errors = 0;
      long outCalls = 0;
      long outFirst = 0;
      long outErrors = 0;
      for (List<Hit> l : hits) {
        for (Hit h : l) {
          boolean inWindow = windows.stream().anyMatch(wd -> h.startNanos() >= wd[0] && h.startNanos() <= wd[1]);
          calls++;
          boolean firstHit = h.ok() && h.attempts() == 1;
          first += firstHit ? 1 : 0;
          twoHops += h.attempts() >= 2 ? 1 : 0;
          errors += h.ok() ? 0 : 1;
          if (!inWindow) {
            outCalls++;
            outFirst += firstHit ? 1 : 0;
            outErrors += h.ok() ? 0 : 1;
          }
        }
      }
      out.printf("  %d kills, %d adds; %,d calls, %,d re-routed once by a member's hint (extra hop rate %.3f%%), "
          + "%,d failed%n", kills, adds, calls, twoHops, 100.0 * twoHops / calls, errors);
      out.printf("  first-hit owner share: %.3f%% of all calls; %.3f%% of the %,d calls outside the failover windows "
              + "(goal >= 99%%: %s), %d of them failed%n", 100.0 * first / calls, 100.0 * outFirst / outCalls,
          outCalls, 100.0 * outFirst / outCalls >= 99 ? "met" : "MISSED", outErrors);
      out.printf("  (a window: from a membership change until %d ms after the table that follows it; failures in a "
          + "window are calls for units of a killed member before the table gave them a new owner)%n", settleMs);
      out.flush();
    }
  }
}
