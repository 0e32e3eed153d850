package io.allot.server.dev;

import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.distributor.PoolDistributor;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The embedded main job: in one process, with no external services, a distributor on the
 * in-memory store, demo members that are real gRPC servers on loopback ports, and demo units.
 * Prints the table on every change and, every few seconds, stops or restarts a member so the
 * redistribution can be watched.
 */
public final class DevMode implements AutoCloseable {
  public static final String POOL = "sys-robots-list";
  public static final String UNITS = "sys-channels";
  public static final String TABLE = "sys-matching-table";

  private final PrintStream out;
  private final Store store;
  private final List<DemoMember> members = new ArrayList<>();
  private final DistributorServer server;
  private final Duration chaosEvery;
  private final CountDownLatch done = new CountDownLatch(1);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  public DevMode(PrintStream out, int memberCount, int unitCount, String strategy, Duration poll, Duration chaosEvery, MeterRegistry registry) {
    this.out = out;
    this.chaosEvery = chaosEvery;
    this.store = io.allot.store.metrics.StoreMeters.wrap(new MemoryStore(), registry);
    for (int i = 0; i < memberCount; i++) {
      DemoMember m = new DemoMember(0, true, i % 2 == 1).start(); // every other one also answers the legacy ping
      members.add(m);
      store.seedKeys().addToList(POOL, m.address());
    }
    List<String> units = new ArrayList<>();
    for (int i = 1; i <= unitCount; i++) {
      units.add(String.format("unit-%02d", i));
    }
    store.seedKeys().replaceList(UNITS, units);
    Duration timeout = Duration.ofSeconds(1);
    DistributorSettings s =
        new DistributorSettings(List.of(POOL), UNITS, TABLE, poll, timeout, 2, false,
            DistributorSettings.defaultLeaderTtl(poll, timeout), strategy, Pinger.Mode.AUTO);
    server = new DistributorServer(store, s, registry, this::print);
  }

  private synchronized void print(String pool, PoolDistributor.Published p) {
    out.printf("%n%s  epoch %d  table of %s (%s):%n", LocalTime.now().format(TIME), p.epoch(), pool,
        p.down().isEmpty() ? "all members up" : p.down().size() + " down");
    Map<String, List<String>> byMember = p.table().byMember();
    for (String m : store.seedKeys().list(POOL).stream().sorted().toList()) {
      List<String> units = byMember.get(m);
      String state = p.down().contains(m) ? "DOWN" : units == null ? "not answering yet" : units.size() + " units";
      out.printf("  %-16s %-18s %s%n", m, state, units == null ? "" : String.join(",", units));
    }
    out.flush();
  }

  /** Runs until {@code duration} passes (or forever if null) or {@link #close()} is called. */
  public void run(Duration duration) throws InterruptedException {
    out.printf("allot dev: distributor on the in-memory store, %d demo members (gRPC on 127.0.0.1), %d units.%n",
        members.size(), store.seedKeys().list(UNITS).size());
    out.printf("Every %ds one member is stopped or restarted; watch the units move. Ctrl-C to quit.%n", chaosEvery.toSeconds());
    server.start();
    long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
    int step = 0;
    while (System.nanoTime() < end) {
      long wait = Math.min(chaosEvery.toNanos(), end - System.nanoTime());
      if (done.await(Math.max(wait, 0), TimeUnit.NANOSECONDS)) {
        return;
      }
      if (System.nanoTime() >= end) {
        break;
      }
      DemoMember m = members.get(step % members.size());
      if (m.running()) {
        out.printf("%n%s  >>> stopping member %s%n", LocalTime.now().format(TIME), m.address());
        m.stop();
      } else {
        out.printf("%n%s  >>> restarting member %s%n", LocalTime.now().format(TIME), m.address());
        m.start();
      }
      out.flush();
      // stop members 0,1 in turn and bring each back: step 0 stop m0, 1 restart m0 (same index twice)
      if (!m.running()) {
        continue;
      }
      step++;
    }
  }

  public Store store() {
    return store;
  }

  public List<DemoMember> members() {
    return members;
  }

  @Override
  public void close() {
    done.countDown();
    server.close();
    members.forEach(DemoMember::close);
    store.close();
  }
}
