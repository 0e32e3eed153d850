package io.allot.bench;

import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The distributor process of {@code bench distributor}: a {@link DistributorServer} on its own store connection, in
 * a JVM of its own, so the bench can measure its CPU time and heap apart from the simulated members. Arguments:
 * store URI, services list, units list, table key, strategy, poll interval (ms), ping timeout (ms). Prints
 * {@code ready} once started, then every second one {@code stats} line (see {@link Stats}); exits when its standard
 * input closes.
 */
final class DistributorProcess {
  private DistributorProcess() {}

  /**
   * One {@code stats} line: heap used now, heap used after the last collection (summed over the heap pools), heap
   * committed, and the totals so far of the rounds, pings, computations and publications (count and milliseconds).
   */
  record Stats(long heapUsed, long heapAfterGc, long heapCommitted, long rounds, double roundMs, long publishes,
      double publishMs, double computeMs) {

    static Stats parse(String line) {
      String[] f = line.trim().split(" ");
      return new Stats(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
          Double.parseDouble(f[5]), Long.parseLong(f[6]), Double.parseDouble(f[7]), Double.parseDouble(f[8]));
    }

    String format() {
      return String.format(Locale.ROOT, "stats %d %d %d %d %.3f %d %.3f %.3f", heapUsed, heapAfterGc, heapCommitted,
          rounds, roundMs, publishes, publishMs, computeMs);
    }
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    String uri = args[0];
    DistributorSettings s = new DistributorSettings(List.of(args[1]), args[2], args[3],
        Duration.ofMillis(Long.parseLong(args[5])), Duration.ofMillis(Long.parseLong(args[6])), 3, false,
        Duration.ofSeconds(60), args[4], Pinger.Mode.AUTO);
    SimpleMeterRegistry reg = new SimpleMeterRegistry();
    try (Store store = Stores.open(uri);
        DistributorServer server = new DistributorServer(store, s, reg, null)) {
      server.start();
      System.out.println("ready");
      System.out.flush();
      Thread stats = new Thread(() -> {
        while (true) {
          System.out.println(stats(reg).format());
          System.out.flush();
          try {
            Thread.sleep(1000);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "stats");
      stats.setDaemon(true);
      stats.start();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (in.readLine() != null) {
        // runs until the bench closes our standard input
      }
      stats.interrupt();
    }
  }

  private static Stats stats(SimpleMeterRegistry reg) {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    long afterGc = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
        afterGc += p.getCollectionUsage().getUsed();
      }
    }
    Timer cycle = reg.find("allot.distributor.rounds").timer();
    Timer publish = reg.find("allot.distributor.publish").timer();
    Timer compute = reg.find("allot.distributor.compute").timer();
    return new Stats(heap.getUsed(), afterGc, heap.getCommitted(), cycle == null ? 0 : cycle.count(),
        cycle == null ? 0 : cycle.totalTime(TimeUnit.MILLISECONDS), publish == null ? 0 : publish.count(),
        publish == null ? 0 : publish.totalTime(TimeUnit.MILLISECONDS),
        compute == null ? 0 : compute.totalTime(TimeUnit.MILLISECONDS));
  }
}
