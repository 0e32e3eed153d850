package io.allot.bench;

import io.allot.core.assign.Assigners;
import io.allot.server.dev.DemoMember;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.distributor.GroupDistributor;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench distributor}: one distributor cycle at scale. M members (real gRPC servers on loopback ports, sharing
 * Netty's event loops) and N units; prints ping round, compute and write times for a few cycles: the first
 * (everything new), then steady state (nothing changed), then one member stopped.
 */
@Command(
    name = "distributor",
    sortOptions = false,
    description = {
      "One distributor cycle at scale.",
      "M members (real gRPC servers on loopback ports) and N units. Prints ping round, compute and write times: "
          + "first cycle, steady cycles, and a cycle after one member stopped."
    })
final class DistributorBench implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin HelpOption help;

  @Option(names = "--members", defaultValue = "1000", description = "Members (1 to 5000). Default ${DEFAULT-VALUE}.")
  int members;

  @Option(names = "--units", defaultValue = "100000", description = "Units. Default ${DEFAULT-VALUE}.")
  int units;

  @Option(names = "--store", paramLabel = "URI", defaultValue = "redis://127.0.0.1:6379?timeout=30s",
      description = "The store: redis://host:port[?timeout=30s] (a large table is one big write), "
          + "postgresql://user@host:port/db, or memory:. Default ${DEFAULT-VALUE}.")
  String store;

  @Option(names = "--strategy", defaultValue = "rendezvous", description = "Default ${DEFAULT-VALUE}.")
  String strategy;

  @Option(names = "--cycles", defaultValue = "3", description = "Steady cycles to time (at least 1). Default ${DEFAULT-VALUE}.")
  int cycles;

  @Override
  public Integer call() throws Exception {
    if (members < 1 || members > 5000) {
      throw bad("--members must be between 1 and 5000, got " + members);
    }
    if (units < 1) {
      throw bad("--units must be at least 1, got " + units);
    }
    if (cycles < 1) {
      throw bad("--cycles must be at least 1, got " + cycles);
    }
    try {
      Assigners.byName(strategy);
    } catch (IllegalArgumentException e) {
      throw bad("--strategy: " + e.getMessage());
    }
    Store st;
    try {
      st = Stores.open(store.equalsIgnoreCase("memory") ? "memory:" : store);
    } catch (IllegalArgumentException e) {
      throw bad("--store: " + e.getMessage());
    }
    try (st) {
      run(st, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
    return 0;
  }

  private ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private void run(Store st, PrintWriter out, PrintWriter progress) throws Exception {
    String p = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    String group = p + "services";
    String unitsKey = p + "units";
    String table = p + "table";
    List<DemoMember> demo = new ArrayList<>();
    try {
      progress.printf("starting %d gRPC members...%n", members);
      progress.flush();
      for (int i = 0; i < members; i++) {
        demo.add(new DemoMember(0, true, false).start());
      }
      st.seedKeys().replaceList(group, demo.stream().map(DemoMember::address).toList());
      List<String> unitNames = new ArrayList<>(units);
      for (int i = 0; i < units; i++) {
        unitNames.add(String.format("unit-%07d", i));
      }
      st.seedKeys().replaceList(unitsKey, unitNames);
      Duration timeout = Duration.ofSeconds(5);
      DistributorSettings s = new DistributorSettings(List.of(group), unitsKey, table, Duration.ofSeconds(1), timeout, 1,
          false, Duration.ofSeconds(60), strategy, Pinger.Mode.AUTO);
      SimpleMeterRegistry reg = new SimpleMeterRegistry();
      try (Pinger pinger = new Pinger(Pinger.Mode.AUTO, timeout)) {
        GroupDistributor d = new GroupDistributor(st, pinger, Assigners.byName(strategy), s, group, "bench", reg, null);
        out.printf(Locale.ROOT, "distributor cycle: %d members (gRPC on loopback), %d units, strategy %s, store %s, %d cores%n",
            members, units, strategy, st.describe(), Runtime.getRuntime().availableProcessors());
        out.printf(Locale.ROOT, "%-26s %10s %10s %10s %10s%n", "cycle", "total ms", "ping ms", "compute ms", "write ms");
        for (int c = 0; c < cycles + 2; c++) {
          String label = c == 0 ? "first (cold channels)" : c <= cycles ? "steady #" + c : "one member stopped";
          if (c == cycles + 1) {
            demo.get(demo.size() / 2).stop();
          }
          double total0 = total(reg, "allot_cycle");
          double compute0 = total(reg, "allot_compute");
          double write0 = total(reg, "allot_publish");
          d.cycle();
          out.printf(Locale.ROOT, "%-26s %10.1f %10.1f %10.1f %10.1f%n", label, total(reg, "allot_cycle") - total0,
              d.lastPingRoundNanos() / 1e6, total(reg, "allot_compute") - compute0, total(reg, "allot_publish") - write0);
          out.flush();
        }
        d.release();
      }
    } finally {
      demo.forEach(DemoMember::close);
      try {
        st.seedKeys().replaceList(group, List.of());
        st.seedKeys().replaceList(unitsKey, List.of());
      } catch (RuntimeException ignored) {
        // best effort
      }
    }
  }

  private static double total(SimpleMeterRegistry reg, String name) {
    Timer t = reg.find(name).timer();
    return t == null ? 0 : t.totalTime(TimeUnit.MILLISECONDS);
  }
}
