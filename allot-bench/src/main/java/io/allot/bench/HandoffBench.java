package io.allot.bench;

import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.ping.Pinger;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.cli.StoreOption;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.testkit.Poll;
import io.allot.testkit.overlap.OverlapChecker;
import io.allot.testkit.overlap.OwnershipLog;
import io.allot.worker.Divider;
import io.allot.worker.UnitListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench handoff}: planned moves in one JVM. An in-process distributor ({@link DistributorServer}, as
 * {@code allot server} runs it) and M workers ({@link Divider}s with the default settings, each with a store
 * connection of its own) share N units over a real store. A rolling restart: each worker in turn
 * {@link Divider#flushAndCancel drains and leaves}, then a new one joins; at the end a fifth member joins. Every
 * listener stops a unit at once and confirms it from the SDK's event thread, so the figures are the SDK's, the
 * store's and the distributor's time, not an application's.
 *
 * <p>Measured per moved unit: the gap from the old owner's stop (its {@code onStop}) to the new owner's start (its
 * {@code onStart}), split at the store's release announcement (the old owner's part, then the new owner's); per
 * phase: the distributor's reaction (the affinity change or the join until the table is published), the drain, and
 * for a join the time until the new member runs its full share. An {@link OwnershipLog} records every run; the overlap
 * check covers the whole run. The baseline, measured in the same run, is one store round trip.
 */
@Command(
    name = "handoff",
    sortOptions = false,
    description = {
      "Planned handoffs: a rolling restart and a join, in one JVM.",
      "An in-process distributor and M workers (default settings) share N units on a real store. Each worker in turn "
          + "drains (flushAndCancel) and a new one joins; then one more member joins. Prints, per moved unit, the gap "
          + "between the old owner's stop and the new owner's start (p50/p99/max, split at the release), the "
          + "distributor's reaction, the time until a joining member runs its full share, and the overlap check."
    })
final class HandoffBench implements Callable<Integer> {
  @Mixin CommonOptions common;

  /** --workers M, --units N. */
  @Mixin FleetSize size;

  /** The store (memory: is one store shared in-process). */
  @Mixin StoreOption store = new StoreOption("redis://127.0.0.1:6379");

  @Mixin StrategyOption strategy;

  @Option(names = "--settle-timeout", paramLabel = "SECONDS", defaultValue = "120",
      description = "How long a phase may take to settle. Default ${DEFAULT-VALUE}.")
  int settleSeconds;

  @Option(names = "--claim-batch", paramLabel = "N", defaultValue = "64",
      description = "The workers' claimBatch (claims per store call). Default ${DEFAULT-VALUE}, the SDK's.")
  int claimBatch;

  @Option(names = "--max-moves", paramLabel = "N", defaultValue = "32",
      description = "The workers' maxConcurrentMoves (stops not yet released, per member). Default ${DEFAULT-VALUE},"
          + " the SDK's.")
  int maxMoves;

  /** The shared store of a {@code memory:} run (null otherwise); set once in call(). */
  private Store shared;

  @Override
  public Integer call() throws Exception {
    checkOptions();
    PrintWriter out = common.out();
    String prefix = "handoff-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    String pool = prefix + "list";
    String unitsKey = prefix + "units";
    String tableKey = prefix + "table";
    List<String> unitNames = size.unitNames();
    boolean memory = store.isMemory();
    Store control = store.open(null);
    shared = memory ? control : null;
    List<AutoCloseable> closeables = new ArrayList<>();
    Recorder rec = new Recorder();
    try {
      double rtMillis = roundTripMillis(control, pool);
      double[] batchMillis = claimBatchMillis(control, prefix + "baseline");
      control.seedKeys().replaceList(unitsKey, unitNames);
      closeables.add(control.notifications().subscribe(Topic.releases(pool), rec::released));
      out.printf(Locale.ROOT, "handoff bench: one JVM, %d workers + 1 joining, %d units, store %s, strategy %s, worker"
          + " settings lease " + io.allot.worker.Divider.DEFAULT_LEASE_TTL.toMillis() + " ms, sync "
          + io.allot.worker.Divider.DEFAULT_SYNC_INTERVAL.toMillis() + " ms (the defaults), maxConcurrentMoves %d, claimBatch %d; listeners stop"
          + " and confirm at once; %d cores%n", size.workers, size.units, control.describe(), strategy.name, maxMoves, claimBatch,
          Runtime.getRuntime().availableProcessors());
      out.printf(Locale.ROOT, "baseline: one store round trip (ownersOf of one unit) p50 %.3f ms; on the idle store,"
          + " claimAll of %d new units p50 %.2f ms, releaseAll of them p50 %.2f ms%s%n", rtMillis, claimBatch,
          batchMillis[0], batchMillis[1], batchMillis[2] < 1
              ? String.format(Locale.ROOT, " (only %.0f %% granted: the store's lost-state guard; not a batch's cost)",
                  batchMillis[2] * 100)
              : "");
      out.flush();

      Store distStore = open(closeables);
      DistributorSettings ds = new DistributorSettings(List.of(pool), unitsKey, tableKey, Duration.ofSeconds(1),
          Duration.ofSeconds(1), DistributorSettings.DEFAULT_DOWN_AFTER, false,
          DistributorSettings.defaultLeaderTtl(Duration.ofSeconds(1), Duration.ofSeconds(1)), strategy.name,
          Pinger.Mode.AUTO);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      DistributorServer dist = new DistributorServer(distStore, ds, meters,
          (g, p) -> rec.published(p.epoch()));
      closeables.add(dist);
      dist.start();

      List<Member> live = new ArrayList<>();
      List<Member> all = new ArrayList<>();
      int next = 0;
      for (int i = 0; i < size.workers; i++) {
        live.add(startMember("m" + next++, pool, tableKey, rec, closeables));
        all.add(live.get(live.size() - 1));
      }
      settle(control, tableKey, unitNames, live, rec);
      out.printf(Locale.ROOT, "fleet settled: %d members, every unit running once%n", live.size());
      out.flush();

      List<Long> allGaps = new ArrayList<>();
      List<Long> ownerPart = new ArrayList<>();
      List<Long> claimerPart = new ArrayList<>();
      for (int i = 0; i < size.workers; i++) {
        Member old = live.remove(0);
        int held = old.divider.assigned().size();
        Phase drain = rec.phase();
        long t0 = System.nanoTime();
        boolean flushed = old.divider.flushAndCancel(Duration.ofSeconds(settleSeconds));
        long drained = System.nanoTime() - t0;
        if (!flushed) {
          return fail(out, "the drain of " + old.name + " did not finish within --settle-timeout");
        }
        Phase join = rec.phase();
        long tj = System.nanoTime();
        Member fresh = startMember("m" + next++, pool, tableKey, rec, closeables);
        live.add(fresh);
        all.add(fresh);
        settle(control, tableKey, unitNames, live, rec);
        report(out, rec, "restart " + (i + 1) + ": drain of " + old.name + " (" + held + " units): table after "
            + ms(rec.firstPublishAfter(t0) - t0) + " ms, first stop after " + ms(firstStop(rec, drain) - t0)
            + " ms, drained and left after " + ms(drained) + " ms", drain);
        report(out, rec, "restart " + (i + 1) + ": join of " + fresh.name + ": table after "
            + ms(rec.firstPublishAfter(tj) - tj) + " ms, first stop after " + ms(firstStop(rec, join) - tj)
            + " ms, full share (" + fresh.divider.assigned().size() + " units) after "
            + ms(rec.lastStartOf(fresh.name) - tj) + " ms", join);
        addAll(rec, drain, allGaps, ownerPart, claimerPart);
        addAll(rec, join, allGaps, ownerPart, claimerPart);
      }

      Phase join = rec.phase();
      long tj = System.nanoTime();
      Member fifth = startMember("m" + next, pool, tableKey, rec, closeables);
      live.add(fifth);
      all.add(fifth);
      settle(control, tableKey, unitNames, live, rec);
      long fullShare = rec.lastStartOf(fifth.name) - tj;
      report(out, rec, "join of a member to " + (live.size() - 1) + ": table after " + ms(rec.firstPublishAfter(tj) - tj)
          + " ms, first stop after " + ms(firstStop(rec, join) - tj) + " ms, full share (" + fifth.divider.assigned().size() + " units) after " + ms(fullShare) + " ms", join);
      addAll(rec, join, allGaps, ownerPart, claimerPart);

      long[] g = sorted(allGaps);
      out.printf(Locale.ROOT, "handoff gap (old owner's stop -> new owner's start), all %d moves of the run: p50 %.1f ms,"
          + " p99 %.1f ms, max %.1f ms (p50 = %.1f store round trips)%n", g.length, pctMs(g, 50), pctMs(g, 99),
          g.length == 0 ? 0.0 : g[g.length - 1] / 1e6, g.length == 0 ? 0.0 : pctMs(g, 50) / rtMillis);
      long[] o = sorted(ownerPart);
      long[] c = sorted(claimerPart);
      out.printf(Locale.ROOT, "  split at the release announcement: stop -> released p50 %.1f ms, p99 %.1f ms;"
          + " released -> started p50 %.1f ms, p99 %.1f ms%n", pctMs(o, 50), pctMs(o, 99), pctMs(c, 50), pctMs(c, 99));
      out.printf(Locale.ROOT, "join of a fifth member: full share after %d ms%n", fullShare / 1_000_000L);
      out.printf(Locale.ROOT, "release announcements: %d grants (push handoffs), %d plain releases%n", rec.grants.get(),
          rec.plainReleases.get());
      out.printf(Locale.ROOT, "distributor over the run: %s; %s; %s%n", timer(meters, "allot.distributor.rounds", "rounds"),
          timer(meters, "allot.distributor.compute", "computations"), timer(meters, "allot.distributor.publish", "table writes"));
      for (Member m : live) {
        m.divider.cancel();
      }
      long leaseLosses = 0;
      long refused = 0;
      long claims = 0;
      for (Member m : all) {
        leaseLosses += m.divider.stats().leaseLosses();
        refused += m.divider.stats().claimsRefused();
        claims += m.divider.stats().claims();
      }
      out.printf(Locale.ROOT, "workers over the run: %d claims, %d refused claims, %d lease losses (self-fencing: a"
          + " starved JVM; its units move only after the lease)%n", claims, refused, leaseLosses);
      OverlapChecker.Report r = rec.log.check();
      out.printf(Locale.ROOT, "overlap check over the run: %d ownership intervals, %d overlaps, %d problems%n",
          r.intervals(), r.overlaps().size(), r.problems().size());
      r.violations().stream().limit(10).forEach(v -> out.println("  " + v));
      boolean met = g.length > 0 && pctMs(g, 50) <= 20 && pctMs(g, 99) <= 100;
      out.printf(Locale.ROOT, "goal gap p50 <= 20 ms: %.1f ms, %s%n", pctMs(g, 50), metOrNot(g.length > 0 && pctMs(g, 50) <= 20));
      out.printf(Locale.ROOT, "goal gap p99 <= 100 ms: %.1f ms, %s%n", pctMs(g, 99), metOrNot(g.length > 0 && pctMs(g, 99) <= 100));
      out.printf(Locale.ROOT, "goal a fifth member's full share <= 300 ms: %d ms, %s%n", fullShare / 1_000_000L,
          metOrNot(fullShare <= 300_000_000L));
      out.printf(Locale.ROOT, "goal 0 overlaps: %d, %s%n", r.overlaps().size() + r.problems().size(), metOrNot(r.clean()));
      out.printf(Locale.ROOT, "target (gap p50 <= 20 ms, p99 <= 100 ms, full share <= 300 ms, 0 overlaps): %s%n",
          met && fullShare <= 300_000_000L && r.clean() ? "met" : "NOT met");
      out.flush();
      return r.clean() ? 0 : 1;
    } finally {
      for (int i = closeables.size() - 1; i >= 0; i--) {
        try {
          closeables.get(i).close();
        } catch (Exception e) {
          common.err().println("closing: " + e);
        }
      }
      try {
        control.seedKeys().replaceList(unitsKey, List.of());
      } catch (RuntimeException e) {
        common.err().println("cleaning up the units list: " + e);
      }
      control.close();
    }
  }

  private void checkOptions() {
    OptionChecks check = common.checks();
    size.check(check);
    check.atLeast("--settle-timeout", settleSeconds, 1, " s");
    check.atLeast("--claim-batch", claimBatch, 1, "");
    check.atLeast("--max-moves", maxMoves, 1, "");
    strategy.check(check);
  }

  /** A store handle of its own (the shared one for memory:), closed with the run. */
  private Store open(List<AutoCloseable> closeables) {
    if (shared != null) {
      return shared;
    }
    Store s = store.open(null);
    closeables.add(s);
    return s;
  }

  /** A started worker with default settings whose listener stops and confirms at once. */
  private Member startMember(String name, String pool, String tableKey, Recorder rec, List<AutoCloseable> closeables) {
    Store s = open(closeables);
    Member m = new Member(name);
    m.divider = Divider.builder(s).pool(pool).distribution(tableKey).host("127.0.0.1").port(0)
        .claimBatch(claimBatch).maxConcurrentMoves(maxMoves)
        .listener(UnitListener.of(e -> rec.started(e.unit(), m.name, e.token()), e -> {
          rec.stopped(e.unit(), m.name);
          if (e.reason().awaitsConfirmation()) {
            m.divider.confirmStop(e.unit(), e.token());
          }
        }))
        .build();
    closeables.add(m.divider);
    m.divider.start();
    return m;
  }

  /**
   * Waits until every unit runs exactly once, on the member the published table gives it, and every live member has
   * a share (polled every 50 ms, a running count first, so the poll does not hold up the listeners; the figures come
   * from the recorded events, not from this poll).
   */
  private void settle(Store control, String tableKey, List<String> unitNames, List<Member> live, Recorder rec) {
    Map<String, String> idToName = new HashMap<>();
    live.forEach(m -> idToName.put(m.divider.memberId(), m.name));
    boolean ok = Poll.until(() -> {
      if (rec.runningCount.get() != unitNames.size()) {
        return false; // cheap: the full check below locks the log (the listeners wait) and reads the table
      }
      Map<String, String> running = rec.log.running();
      if (running.size() != unitNames.size()) {
        return false;
      }
      Map<String, String> wanted = new HashMap<>();
      control.tables().units(tableKey).forEach((member, list) -> {
        String n = idToName.get(member);
        list.forEach(u -> wanted.put(u, n));
      });
      return new HashSet<>(wanted.values()).equals(new HashSet<>(idToName.values()))
          && unitNames.stream().allMatch(u -> running.get(u) != null && running.get(u).equals(wanted.get(u)));
    }, Duration.ofSeconds(settleSeconds), Duration.ofMillis(50));
    if (!ok) {
      throw new IllegalStateException("the fleet did not settle (every unit running once, where the table says) within "
          + settleSeconds + " s");
    }
  }

  /** "N what, mean X ms, max Y ms" of a distributor timer. */
  private static String metOrNot(boolean met) {
    return met ? "met" : "NOT met";
  }

  private static String timer(SimpleMeterRegistry meters, String name, String what) {
    io.micrometer.core.instrument.Timer t = meters.find(name).timer();
    if (t == null) {
      return "no " + what;
    }
    return String.format(Locale.ROOT, "%d %s, mean %.1f ms, max %.1f ms", t.count(), what,
        t.mean(java.util.concurrent.TimeUnit.MILLISECONDS), t.max(java.util.concurrent.TimeUnit.MILLISECONDS));
  }

  /** p50 of 200 reads of one unit's owner: the cost of one store round trip here. */
  private static double roundTripMillis(Store s, String pool) {
    long[] t = new long[200];
    for (int i = 0; i < t.length; i++) {
      long t0 = System.nanoTime();
      s.ownership(pool).ownersOf(List.of("u0"));
      t[i] = System.nanoTime() - t0;
    }
    Arrays.sort(t);
    return pctMs(t, 50);
  }

  /**
   * p50 of 20 claimAll calls of {@code claimBatch} new units by one member of {@code pool} (a pool of its own), and
   * of the releaseAll that gives each batch back: what a batch costs the idle store, against which the handoffs'
   * gaps under load are read; and the share of the claims granted (below 1 while a lost-state guard lasts).
   */
  private double[] claimBatchMillis(Store s, String pool) {
    long session = s.membership(pool).register("baseline", MemberMeta.DEFAULT, Duration.ofSeconds(30));
    long[] claim = new long[20];
    long[] release = new long[claim.length];
    int granted = 0;
    try {
      for (int r = 0; r < claim.length; r++) {
        int round = r;
        List<String> batch = IntStream.range(0, claimBatch).mapToObj(i -> "b" + round + "-" + i).toList();
        long t0 = System.nanoTime();
        Map<String, Long> tokens = s.ownership(pool).claimAll(batch, "baseline", session); // refused ones absent
        long t1 = System.nanoTime();
        s.ownership(pool).releaseAll(tokens, "baseline");
        granted += tokens.size();
        claim[r] = t1 - t0;
        release[r] = System.nanoTime() - t1;
      }
    } finally {
      s.membership(pool).deregister("baseline", session);
    }
    Arrays.sort(claim);
    Arrays.sort(release);
    return new double[] {pctMs(claim, 50), pctMs(release, 50), granted / (double) (claim.length * claimBatch)};
  }

  private static void report(PrintWriter out, Recorder rec, String head, Phase p) {
    long[] g;
    long[] o;
    long[] c;
    synchronized (rec) {
      g = sorted(p.gaps);
      o = sorted(p.ownerPart);
      c = sorted(p.claimerPart);
    }
    out.printf(Locale.ROOT, "%s; %d moves: gap p50 %.1f ms, p99 %.1f ms, max %.1f ms (stop -> released p50 %.1f,"
            + " p99 %.1f; released -> started p50 %.1f, p99 %.1f)%n", head, g.length, pctMs(g, 50), pctMs(g, 99),
        g.length == 0 ? 0.0 : g[g.length - 1] / 1e6, pctMs(o, 50), pctMs(o, 99), pctMs(c, 50), pctMs(c, 99));
    out.flush();
  }

  private static void addAll(Recorder rec, Phase p, List<Long> gaps, List<Long> owner, List<Long> claimer) {
    synchronized (rec) {
      gaps.addAll(p.gaps);
      owner.addAll(p.ownerPart);
      claimer.addAll(p.claimerPart);
    }
  }

  private static long firstStop(Recorder rec, Phase p) {
    synchronized (rec) {
      return p.firstStop == Long.MAX_VALUE ? Long.MIN_VALUE / 2 : p.firstStop;
    }
  }

  private static int fail(PrintWriter out, String why) {
    out.println("FAILED: " + why);
    out.flush();
    return 1;
  }

  private static long ms(long nanos) {
    return nanos < 0 ? -1 : nanos / 1_000_000L;
  }

  private static long[] sorted(List<Long> xs) {
    long[] a = xs.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(a);
    return a;
  }

  private static double pctMs(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, idx))] / 1e6;
  }

  /** A worker of the bench. */
  private static final class Member {
    final String name;
    /** Set once, before start(); read by its listener on the SDK's event thread. */
    volatile Divider divider;

    Member(String name) {
      this.name = name;
    }
  }

  /** The moves whose stop came in one phase. Guarded by the recorder. */
  private static final class Phase {
    final List<Long> gaps = new ArrayList<>();
    final List<Long> ownerPart = new ArrayList<>();
    final List<Long> claimerPart = new ArrayList<>();
    /** When the first stop of the phase came (nanoTime); Long.MAX_VALUE: none. */
    long firstStop = Long.MAX_VALUE;
  }

  /**
   * What the listeners, the release announcements and the distributor report, with {@link System#nanoTime()} (one
   * JVM: one clock). Thread-safe: the maps are concurrent; a phase's lists are guarded by {@code this}.
   */
  private static final class Recorder {
    final OwnershipLog log = new OwnershipLog();
    /** Starts minus stops: the settle poll's cheap first test. */
    final java.util.concurrent.atomic.AtomicInteger runningCount = new java.util.concurrent.atomic.AtomicInteger();
    /** Release announcements that granted the unit (push handoffs), and plain ones. */
    final java.util.concurrent.atomic.AtomicLong grants = new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong plainReleases = new java.util.concurrent.atomic.AtomicLong();
    /** Unit -> its last stop: when, and in which phase. */
    private final Map<String, Stop> stoppedAt = new ConcurrentHashMap<>();
    /** Unit -> when its release was announced after that stop. */
    private final Map<String, Long> releasedAt = new ConcurrentHashMap<>();
    /** Member name -> the time of its latest start. */
    private final Map<String, Long> lastStart = new ConcurrentHashMap<>();
    private final List<Long> publishedAt = new CopyOnWriteArrayList<>();
    /** The phase stops are counted in now. Guarded by this. */
    private Phase phase = new Phase();

    private record Stop(long at, Phase phase) {}

    void started(String unit, String member, long token) {
      long now = System.nanoTime();
      log.open(unit, member, token);
      runningCount.incrementAndGet();
      lastStart.put(member, now);
      Stop stop = stoppedAt.remove(unit);
      Long rel = releasedAt.remove(unit);
      if (stop != null) {
        synchronized (this) {
          stop.phase().gaps.add(now - stop.at());
          if (rel != null && rel >= stop.at()) {
            stop.phase().ownerPart.add(rel - stop.at());
            stop.phase().claimerPart.add(now - rel);
          }
        }
      }
    }

    void stopped(String unit, String member) {
      log.close(unit, member);
      runningCount.decrementAndGet();
      releasedAt.remove(unit);
      long now = System.nanoTime();
      Phase p;
      synchronized (this) {
        p = phase;
        p.firstStop = Math.min(p.firstStop, now);
      }
      stoppedAt.put(unit, new Stop(now, p));
    }

    void released(String message) {
      // a push handoff's grant ends with "|unit" (the bench's unit names hold no '|')
      boolean grant = io.allot.store.Handoff.isGrant(message);
      (grant ? grants : plainReleases).incrementAndGet();
      String unit = grant ? message.substring(message.lastIndexOf('|') + 1) : message;
      if (stoppedAt.containsKey(unit)) {
        releasedAt.putIfAbsent(unit, System.nanoTime());
      }
    }

    void published(long epoch) {
      publishedAt.add(System.nanoTime());
    }

    long firstPublishAfter(long t) {
      return publishedAt.stream().filter(x -> x >= t).min(Long::compare).orElse(t - 1_000_000L);
    }

    long lastStartOf(String member) {
      return lastStart.getOrDefault(member, 0L);
    }

    /** Starts a new phase: the stops from now on count in it. */
    synchronized Phase phase() {
      phase = new Phase();
      return phase;
    }
  }
}
