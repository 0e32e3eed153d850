package io.allot.bench.jmh;

import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.allot.store.metrics.StoreMeters;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost {@code StoreMeters} adds to a store call: the same calls on the memory store (the cheapest store, so the
 * decorator's share is the largest it can be) bare and wrapped (a dynamic proxy, a timer lookup, one timer record
 * into a Prometheus registry). Run: {@code bin/allot bench jmh StoreMetersJmh -f 1 -wi 3 -w 1 -i 5 -r 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class StoreMetersJmh {

  @Param({"false", "true"})
  public boolean metered;

  private Store store;

  @Setup
  public void setup() {
    Store memory = new MemoryStore();
    store = metered ? StoreMeters.wrap(memory, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)) : memory;
    store.seedKeys().replaceList("k", List.of("a:1", "b:2", "c:3"));
  }

  @TearDown
  public void tearDown() {
    store.close();
  }

  /** The store's clock: the cheapest call. */
  @Benchmark
  public long clock() {
    return store.clock().timeMillis();
  }

  /** A list read. */
  @Benchmark
  public List<String> listRead() {
    return store.seedKeys().list("k");
  }
}
