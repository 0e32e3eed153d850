package io.allot.server.distributor;

import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;

/**
 * A distributor in its own process, for kill -9 and SIGSTOP tests. Args: storeUri pool units
 * table strategy pollMs timeoutMs ttlMs. Prints "LEADER" / "PUBLISHED epoch" lines.
 */
public final class DistributorProcessMain {
  public static void main(String[] a) throws Exception {
    Store store = Stores.open(a[0]);
    DistributorSettings s =
        new DistributorSettings(List.of(a[1]), a[2], a[3], Duration.ofMillis(Long.parseLong(a[5])), Duration.ofMillis(Long.parseLong(a[6])),
            2, false, Duration.ofMillis(Long.parseLong(a[7])), a[4], Pinger.Mode.AUTO);
    DistributorServer server =
        new DistributorServer(store, s, new SimpleMeterRegistry(), (g, p) -> System.out.println("PUBLISHED " + p.epoch())).start();
    System.out.println("STARTED " + server.holder());
    Thread.currentThread().join();
  }
}
