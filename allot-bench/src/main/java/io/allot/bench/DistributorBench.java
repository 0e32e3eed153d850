package io.allot.bench;

import io.allot.server.dev.DemoMember;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.distributor.GroupDistributor;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.allot.store.redis.RedisStore;
import io.allot.store.redis.RedisStoreConfig;
import io.allot.core.assign.Assigners;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One distributor cycle at scale: M members (real gRPC servers on loopback ports, sharing Netty's
 * event loops) and N units. Prints ping round, compute and write times for a few cycles: the first
 * (everything new), then steady state (nothing changed), then one member stopped.
 */
public final class DistributorBench {
  private DistributorBench() {}

  /** Options of a run. */
  public record Options(int members, int units, String store, String strategy, int cycles) {}

  public static void run(Options o, PrintStream out, PrintStream progress) throws Exception {
    String p = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    String group = p + "services";
    String unitsKey = p + "units";
    String table = p + "table";
    Store store =
        o.store().equals("memory")
            ? new MemoryStore()
            : RedisStore.connect(RedisStoreConfig.builder(o.store()).commandTimeout(Duration.ofSeconds(30)).build());
    List<DemoMember> members = new ArrayList<>();
    try {
      progress.printf("starting %d gRPC members...%n", o.members());
      for (int i = 0; i < o.members(); i++) {
        DemoMember m = new DemoMember(0, true, false).start();
        members.add(m);
      }
      List<String> ids = members.stream().map(DemoMember::address).toList();
      store.replaceList(group, ids);
      List<String> units = new ArrayList<>(o.units());
      for (int i = 0; i < o.units(); i++) {
        units.add(String.format("unit-%07d", i));
      }
      store.replaceList(unitsKey, units);
      Duration timeout = Duration.ofSeconds(5);
      DistributorSettings s =
          new DistributorSettings(List.of(group), unitsKey, table, Duration.ofSeconds(1), timeout, 1, false, Duration.ofSeconds(60),
              o.strategy(), Pinger.Mode.AUTO);
      SimpleMeterRegistry reg = new SimpleMeterRegistry();
      try (Pinger pinger = new Pinger(Pinger.Mode.AUTO, timeout)) {
        GroupDistributor d = new GroupDistributor(store, pinger, Assigners.byName(o.strategy()), s, group, "bench", reg, null);
        out.printf(Locale.ROOT, "distributor cycle: %d members (gRPC on loopback), %d units, strategy %s, store %s, %d cores%n",
            o.members(), o.units(), o.strategy(), o.store(), Runtime.getRuntime().availableProcessors());
        out.printf(Locale.ROOT, "%-26s %10s %10s %10s %10s%n", "cycle", "total ms", "ping ms", "compute ms", "write ms");
        for (int c = 0; c < o.cycles() + 2; c++) {
          String label = c == 0 ? "first (cold channels)" : c <= o.cycles() ? "steady #" + c : "one member stopped";
          if (c == o.cycles() + 1) {
            members.get(members.size() / 2).stop();
          }
          double total0 = total(reg, "allot_cycle");
          double compute0 = total(reg, "allot_compute");
          double write0 = total(reg, "allot_publish");
          d.cycle();
          out.printf(Locale.ROOT, "%-26s %10.1f %10.1f %10.1f %10.1f%n", label, total(reg, "allot_cycle") - total0,
              d.lastPingRoundNanos() / 1e6, total(reg, "allot_compute") - compute0, total(reg, "allot_publish") - write0);
        }
        d.release();
      }
    } finally {
      members.forEach(DemoMember::close);
      try {
        store.replaceList(group, List.of());
        store.replaceList(unitsKey, List.of());
      } catch (RuntimeException ignored) {
        // best effort
      }
      store.close();
    }
  }

  private static double total(SimpleMeterRegistry reg, String name) {
    Timer t = reg.find(name).timer();
    return t == null ? 0 : t.totalTime(TimeUnit.MILLISECONDS);
  }
}
