package io.allot.cli;

import io.allot.store.Stores;
import io.allot.worker.Divider;
import io.allot.worker.UnitRunner;
import java.time.Duration;

/** The README's worker example, compiled here so that it stays true. */
public final class ReadmeWorkerExample {
  public static void main(String[] args) throws InterruptedException {
    var store = Stores.open("redis://127.0.0.1:6379");  // or postgresql://..., rediss://..., redis-cluster://...
    var divider = Divider.builder(store).pool("sys-parsers-lists").port(7001).build();
    var runner = UnitRunner.builder(divider, unit -> {
      while (!unit.stopRequested()) {             // true at once when told to stop, or when the lease is in doubt
        scrape(unit.unit(), unit.token());        // pass the fencing token to whatever you write to
        unit.awaitStop(Duration.ofSeconds(5));
      }
    }).build();                                   // the runner confirms each stop when the handler returns
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      divider.flushAndCancel(Duration.ofSeconds(30)); // hand every unit over, then leave
      runner.close();
      store.close();
    }));
    runner.start();                               // registers, answers pings, claims its units
    Thread.currentThread().join();
  }

  static void scrape(String site, long fencingToken) {}
}
