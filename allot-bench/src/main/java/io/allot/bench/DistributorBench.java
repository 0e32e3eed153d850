package io.allot.bench;

import io.allot.server.dev.DemoMember;
import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.Store;
import io.allot.cli.StoreOption;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench distributor}: the control plane at scale. M members are lease-holding sessions written straight
 * through the {@link Membership} role (registered, renewed by this process), P more are real gRPC services on
 * loopback ports that only answer pings (original-style: listed, no record), and N units. The distributor runs in a
 * JVM of its own ({@link DistributorProcess}, {@code -Xmx} as given) so its CPU time and heap are its own. Prints:
 * the first publication; a steady window (CPU time of the distributor process as a share of one core, rounds, heap);
 * then, for each kind of event (a member registers, changes its affinity to 0, deregisters, dies = its lease runs
 * out), the delay from the change in the store to the publication of a table reflecting it (the notification of
 * that epoch), p50/p99/max over the events; and the table write time of one change against the first (full) one.
 */
@Command(
    name = "distributor",
    sortOptions = false,
    description = {
      "The distributor at scale: lease members, ping members, units; steady CPU and heap, and how fast the table "
          + "reflects registrations, affinity changes, deregistrations and deaths (lease expiry)."
    })
final class DistributorBench implements Callable<Integer> {
  static final int MAX_MEMBERS = 100_000;
  /** The lease of a dying member's last renewal: the worker SDK's default lease TTL. */
  static final Duration DEATH_TTL = Duration.ofMillis(1500);

  @Mixin CommonOptions common;

  @Option(names = "--members", defaultValue = "1000",
      description = "Lease-holding members (sessions written through the Membership role), 1 to 100000. Default ${DEFAULT-VALUE}.")
  int members;

  @Option(names = "--ping-members", defaultValue = "10",
      description = "Members without a record that answer gRPC pings (original-style services). Default ${DEFAULT-VALUE}.")
  int pingMembers;

  @Option(names = "--units", defaultValue = "100000", description = "Units. Default ${DEFAULT-VALUE}.")
  int units;

  /** The store, shared with the distributor process. */
  @Mixin StoreOption store = new StoreOption("redis://127.0.0.1:6379?timeout=30s");

  @Mixin StrategyOption strategy;

  @Option(names = "--events", defaultValue = "20", description = "Events of each kind (at least 1). Default ${DEFAULT-VALUE}.")
  int events;

  @Option(names = "--steady", defaultValue = "30", description = "Steady window in seconds. Default ${DEFAULT-VALUE}.")
  int steadySeconds;

  @Option(names = "--member-ttl", defaultValue = "30000",
      description = "Lease of the simulated members in ms; they renew every third of it. Default ${DEFAULT-VALUE}.")
  long memberTtlMillis;

  @Option(names = "--poll", defaultValue = "1000", description = "The distributor's poll interval in ms. Default ${DEFAULT-VALUE}.")
  long pollMillis;

  @Option(names = "--heap", defaultValue = "1g", description = "The distributor process's -Xmx. Default ${DEFAULT-VALUE}.")
  String heap;

  @Option(names = "--log-rounds", description = "The distributor process logs each round's phases (debug) on stderr.")
  boolean logRounds;

  /** A table notification as received: its epoch and when (this host's clock, ms). */
  private record Note(long epoch, long atMillis) {}

  // the run's state; set up by run(), read by the helper methods on the main thread (the queue and maps are shared
  // with the store's notification thread and the renewal threads, hence concurrent)
  private final BlockingQueue<Note> notes = new LinkedBlockingQueue<>();
  private final ConcurrentHashMap<String, Long> alive = new ConcurrentHashMap<>();
  private Store st;
  private Membership membership;
  private String table;
  private ScheduledExecutorService renewals;
  private final AtomicLong renewFailures = new AtomicLong();
  private final AtomicReference<DistributorProcess.Stats> stats = new AtomicReference<>();

  @Override
  public Integer call() throws Exception {
    OptionChecks check = common.checks();
    check.between("--members", members, 1, MAX_MEMBERS);
    check.between("--ping-members", pingMembers, 0, 5000);
    check.atLeast("--units", units, 1, "");
    check.atLeast("--events", events, 1, "");
    check.atLeast("--steady", steadySeconds, 1, " (seconds)");
    check.atLeast("--member-ttl", memberTtlMillis, 1000, " ms");
    strategy.check(check);
    if (store.isMemory()) {
      throw check.bad("--store: memory cannot be shared by processes");
    }
    st = store.open(null);
    try (Store opened = st) {
      run(common.out(), common.err());
    }
    return 0;
  }

  private void run(PrintWriter out, PrintWriter progress) throws Exception {
    String p = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    String pool = p + "services";
    String unitsKey = p + "units";
    table = p + "table";
    membership = st.membership(pool);
    Duration ttl = Duration.ofMillis(memberTtlMillis);
    List<DemoMember> demo = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    ExecutorService workers = Executors.newFixedThreadPool(8);
    renewals = Executors.newScheduledThreadPool(16, r -> {
      Thread t = new Thread(r, "renewals");
      t.setDaemon(true);
      return t;
    });
    Process child = null;
    Subscription sub = null;
    try {
      out.printf(Locale.ROOT, "distributor at scale: %d lease members (ttl %d ms), %d ping members, %d units, strategy %s, "
              + "store %s, poll %d ms, distributor -Xmx%s, %d cores%n", members, memberTtlMillis, pingMembers, units,
          strategy.name, st.describe(), pollMillis, heap, Runtime.getRuntime().availableProcessors());
      out.flush();
      progress.printf("writing %d units...%n", units);
      progress.flush();
      List<String> unitNames = new ArrayList<>(units);
      for (int i = 0; i < units; i++) {
        unitNames.add(String.format(Locale.ROOT, "unit-%07d", i));
      }
      st.seedKeys().replaceList(unitsKey, unitNames);
      unitNames = null;
      progress.printf("starting %d gRPC ping members, registering %d lease members...%n", pingMembers, members);
      progress.flush();
      for (int i = 0; i < pingMembers; i++) {
        DemoMember m = new DemoMember(0, true, false).start();
        demo.add(m);
        st.seedKeys().addToList(pool, m.address());
      }
      List<Future<?>> regs = new ArrayList<>();
      for (int i = 0; i < members; i++) {
        String id = simId(i);
        ids.add(id);
        regs.add(workers.submit(() -> register(id, ttl)));
      }
      for (Future<?> f : regs) {
        f.get();
      }
      sub = st.notifications().subscribe(Topic.table(table),
          m -> notes.add(new Note(Long.parseLong(m.trim()), System.currentTimeMillis())));

      // the distributor process
      long start = System.currentTimeMillis();
      child = startDistributor(pool, unitsKey, progress);
      Note first = notes.poll(10, TimeUnit.MINUTES);
      if (first == null) {
        throw new IllegalStateException("the distributor published nothing in 10 minutes");
      }
      out.printf(Locale.ROOT, "first table published %d ms after the distributor process started (epoch %d)%n",
          first.atMillis() - start, first.epoch());
      DistributorProcess.Stats afterFirst = awaitStats();
      out.printf(Locale.ROOT, "first publication (full table, %d fields): write %.1f ms%n", members + pingMembers,
          afterFirst.publishMs() / Math.max(1, afterFirst.publishes()));
      out.flush();
      Thread.sleep(5000); // settle: the first renewals and ping rounds after the first table

      // steady window
      notes.clear();
      ProcessHandle ph = child.toHandle();
      Duration cpu0 = ph.info().totalCpuDuration().orElse(Duration.ZERO);
      DistributorProcess.Stats s0 = stats.get();
      long w0 = System.nanoTime();
      long heapMax = 0;
      long heapAfterGcMax = 0;
      long committedMax = 0;
      long deadline = w0 + TimeUnit.SECONDS.toNanos(steadySeconds);
      while (System.nanoTime() < deadline) {
        Thread.sleep(200);
        DistributorProcess.Stats s = stats.get();
        heapMax = Math.max(heapMax, s.heapUsed());
        heapAfterGcMax = Math.max(heapAfterGcMax, s.heapAfterGc());
        committedMax = Math.max(committedMax, s.heapCommitted());
      }
      Duration cpu1 = ph.info().totalCpuDuration().orElse(Duration.ZERO);
      double window = (System.nanoTime() - w0) / 1e9;
      DistributorProcess.Stats s1 = stats.get();
      long rounds = s1.rounds() - s0.rounds();
      out.printf(Locale.ROOT, "steady window %.1f s: distributor CPU %.1f %% of one core, %d rounds (%.2f/s, %.1f ms each "
              + "on average), %d publications, renewals refused %d%n",
          window, 100.0 * (cpu1.toNanos() - cpu0.toNanos()) / 1e9 / window, rounds, rounds / window,
          (s1.roundMs() - s0.roundMs()) / Math.max(1, rounds), notes.size(), renewFailures.get());
      out.printf(Locale.ROOT, "heap: max used %.0f MiB, max used after a collection %.0f MiB, max committed %.0f MiB "
          + "(limit -Xmx%s)%n", heapMax / 1048576.0, heapAfterGcMax / 1048576.0, committedMax / 1048576.0, heap);
      out.flush();

      // events
      double offset = storeClockOffset();
      out.printf(Locale.ROOT, "store clock - local clock: %.1f ms%n", offset);
      out.printf(Locale.ROOT, "%-44s %6s %8s %8s %8s %8s%n", "event -> table published", "n", "p50 ms", "p90 ms",
          "p99 ms", "max ms");
      DistributorProcess.Stats e0 = stats.get();
      List<String> arrivals = new ArrayList<>();
      List<Long> arrive = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        String id = "10.250." + (i / 250) + "." + (i % 250) + ":7000";
        arrivals.add(id);
        notes.clear();
        long t0 = System.currentTimeMillis();
        register(id, ttl);
        arrive.add(awaitPublication(id, v -> v.isPresent() && !v.get().isEmpty()) - t0);
      }
      row(out, "registration (a new member gets units)", arrive);
      List<Long> affinity = new ArrayList<>();
      for (String id : arrivals) {
        notes.clear();
        long t0 = System.currentTimeMillis();
        if (!membership.update(id, alive.get(id), MemberMeta.DEFAULT.withAffinity(0))) {
          throw new IllegalStateException("affinity update refused for " + id);
        }
        affinity.add(awaitPublication(id, v -> v.isPresent() && v.get().isEmpty()) - t0);
      }
      row(out, "affinity change to 0 (its units leave)", affinity);
      List<Long> leave = new ArrayList<>();
      for (String id : arrivals) {
        notes.clear();
        long session = alive.remove(id);
        long t0 = System.currentTimeMillis();
        membership.deregister(id, session);
        leave.add(awaitPublication(id, Optional::isEmpty) - t0);
      }
      row(out, "deregistration (its entry leaves)", leave);
      List<Long> death = new ArrayList<>();
      List<String> victims = new ArrayList<>(ids);
      Collections.shuffle(victims);
      int dead = 0;
      for (String id : victims) {
        if (dead == events) {
          break;
        }
        Optional<String> field = st.tables().read(table, id);
        if (field.isEmpty() || field.get().isEmpty()) {
          continue;
        }
        notes.clear();
        synchronized (id) { // no renewal of it runs meanwhile, nor after
          long session = alive.remove(id);
          membership.renew(id, session, DEATH_TTL); // its last renewal, with the SDK's default lease: then it dies
        }
        long leaseEnd = membership.members().get(id).leaseUntilMillis();
        long published = awaitPublication(id, v -> v.isPresent() && v.get().isEmpty());
        death.add(Math.round(published + offset) - leaseEnd);
        dead++;
      }
      row(out, "death (from its lease end; the clock margin is " + st.safety().clockMargin().toMillis() + " ms)", death);
      DistributorProcess.Stats e1 = awaitStats();
      long changes = e1.publishes() - e0.publishes();
      out.printf(Locale.ROOT, "table write of one change: %.1f ms on average over %d publications (first, full: %.1f ms)%n",
          (e1.publishMs() - e0.publishMs()) / Math.max(1, changes), changes,
          afterFirst.publishMs() / Math.max(1, afterFirst.publishes()));
      out.printf(Locale.ROOT, "distributor rounds during the events: %d, %.1f ms each on average%n",
          e1.rounds() - e0.rounds(), (e1.roundMs() - e0.roundMs()) / Math.max(1, e1.rounds() - e0.rounds()));
      out.flush();
    } finally {
      if (sub != null) {
        sub.close();
      }
      if (child != null) {
        try {
          child.getOutputStream().close(); // it exits when its input closes
        } catch (Exception ignored) {
          // gone already
        }
        if (!child.waitFor(30, TimeUnit.SECONDS)) {
          child.destroyForcibly();
        }
      }
      renewals.shutdownNow();
      demo.forEach(DemoMember::close);
      try {
        List<Future<?>> gone = new ArrayList<>();
        alive.forEach((id, session) -> gone.add(workers.submit(() -> membership.deregister(id, session))));
        for (Future<?> f : gone) {
          f.get();
        }
        st.seedKeys().replaceList(pool, List.of());
        st.seedKeys().replaceList(unitsKey, List.of());
        st.seedKeys().replaceList(table, List.of()); // deletes the table hash
      } catch (Exception ignored) {
        // best effort
      }
      workers.shutdownNow();
    }
  }

  static String simId(int i) {
    return "10." + (i / 62500) + "." + (i / 250 % 250) + "." + (i % 250) + ":7000";
  }

  /** Registers {@code id} and renews it every third of its lease until it leaves {@link #alive}. */
  private void register(String id, Duration ttl) {
    long session = membership.register(id, MemberMeta.DEFAULT, ttl);
    alive.put(id, session);
    long every = ttl.toMillis() / 3;
    AtomicReference<java.util.concurrent.ScheduledFuture<?>> self = new AtomicReference<>();
    self.set(renewals.scheduleAtFixedRate(() -> {
      synchronized (id) { // the death of a member takes the same lock (ids are the same String objects)
        Long s = alive.get(id);
        if (s == null || s != session) {
          java.util.concurrent.ScheduledFuture<?> f = self.get();
          if (f != null) {
            f.cancel(false);
          }
          return;
        }
        try {
          if (!membership.renew(id, session, ttl)) {
            renewFailures.incrementAndGet();
          }
        } catch (RuntimeException e) {
          renewFailures.incrementAndGet();
        }
      }
    }, ThreadLocalRandom.current().nextLong(every), every, TimeUnit.MILLISECONDS));
  }

  private Process startDistributor(String pool, String unitsKey, PrintWriter progress) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heap));
    if (logRounds) {
      cmd.add("-Dorg.slf4j.simpleLogger.log.io.allot.server.distributor.PoolDistributor=debug");
      cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), DistributorProcess.class.getName(), store.uri(null), pool,
        unitsKey, table, strategy.name, Long.toString(pollMillis), "1000"));
    Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.equals("ready")) {
            ready.countDown();
          } else if (line.startsWith("stats ")) {
            stats.set(DistributorProcess.Stats.parse(line));
          } else {
            progress.println("distributor: " + line);
            progress.flush();
          }
        }
      } catch (Exception e) {
        // the process ended
      }
    }, "distributor-output");
    reader.setDaemon(true);
    reader.start();
    if (!ready.await(2, TimeUnit.MINUTES)) {
      child.destroyForcibly();
      throw new IllegalStateException("the distributor process did not start");
    }
    return child;
  }

  /** The stats line printed after now (at most about a second later). */
  private DistributorProcess.Stats awaitStats() throws InterruptedException {
    DistributorProcess.Stats before = stats.get();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      DistributorProcess.Stats now = stats.get();
      if (now != null && now != before) {
        return now;
      }
      Thread.sleep(20);
    }
    DistributorProcess.Stats now = stats.get();
    if (now == null) {
      throw new IllegalStateException("the distributor process prints no stats");
    }
    return now;
  }

  /**
   * Waits for the first table notification after which {@code member}'s field satisfies {@code done}; returns when
   * that notification arrived (local ms).
   */
  private long awaitPublication(String member, Predicate<Optional<String>> done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Note n = notes.poll(100, TimeUnit.MILLISECONDS);
      if (n != null && done.test(st.tables().read(table, member))) {
        return n.atMillis();
      }
    }
    throw new IllegalStateException("no table reflected the change of " + member + " within 60 s");
  }

  /** The store's clock minus this host's (ms), from the sample with the shortest round trip of 20. */
  private double storeClockOffset() {
    double best = 0;
    long bestRtt = Long.MAX_VALUE;
    for (int i = 0; i < 20; i++) {
      long a = System.nanoTime();
      long l0 = System.currentTimeMillis();
      long s = st.clock().timeMillis();
      long l1 = System.currentTimeMillis();
      long rtt = System.nanoTime() - a;
      if (rtt < bestRtt) {
        bestRtt = rtt;
        best = s - (l0 + l1) / 2.0;
      }
    }
    return best;
  }

  private static void row(PrintWriter out, String label, List<Long> delays) {
    List<Long> sorted = new ArrayList<>(delays);
    Collections.sort(sorted);
    out.printf(Locale.ROOT, "%-44s %6d %8d %8d %8d %8d%n", label, sorted.size(), pct(sorted, 50), pct(sorted, 90),
        pct(sorted, 99), sorted.get(sorted.size() - 1));
    out.flush();
  }

  /** Nearest-rank percentile. */
  static long pct(List<Long> sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }
}
