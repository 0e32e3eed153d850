package io.allot.server.distributor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicInteger;

/** The meters of one pool's distributor, tagged with the pool, registered once. Thread-safe (the meters are). */
final class PoolMetrics {
  final AtomicInteger up = new AtomicInteger();
  final AtomicInteger down = new AtomicInteger();
  final AtomicInteger units = new AtomicInteger();
  final AtomicInteger unassigned = new AtomicInteger();
  final AtomicInteger leader = new AtomicInteger();
  final Counter tableChanges;
  final Counter badData;
  final Counter storeErrors;
  final Counter lostState;
  final Timer cycle;
  final Timer ping;
  final Timer compute;
  final Timer publish;
  final DistributionSummary pingFailures;

  PoolMetrics(MeterRegistry registry, String pool) {
    gauge(registry, "allot_members", up, pool, "members answering pings", "up");
    gauge(registry, "allot_members", down, pool, "members marked down", "down");
    gauge(registry, "allot_units", units, pool, "work units", null);
    gauge(registry, "allot_units_unassigned", unassigned, pool, "units no member could take (capacity)", null);
    gauge(registry, "allot_leader", leader, pool, "1 while this process leads the pool", null);
    tableChanges = counter(registry, "allot_table_changes", pool, "tables published");
    badData = counter(registry, "allot_bad_data", pool, "invalid entries found in the store (skipped)");
    storeErrors = counter(registry, "allot_store_errors", pool, "cycles that failed on the store");
    lostState = counter(registry, "allot_store_lost_state", pool,
        "publications whose epoch went backwards: the store lost state");
    cycle = Timer.builder("allot_cycle").tag("pool", pool).description("one distributor cycle").register(registry);
    ping = Timer.builder("allot_ping").tag("pool", pool).publishPercentileHistogram().description("ping latency")
        .register(registry);
    compute = Timer.builder("allot_compute").tag("pool", pool).description("table computation").register(registry);
    publish = Timer.builder("allot_publish").tag("pool", pool).description("table write").register(registry);
    pingFailures = DistributionSummary.builder("allot_ping_failures").tag("pool", pool)
        .description("failed pings per cycle").register(registry);
  }

  private static void gauge(MeterRegistry registry, String name, AtomicInteger value, String pool, String description,
      String state) {
    Gauge.Builder<AtomicInteger> b = Gauge.builder(name, value, AtomicInteger::get).tag("pool", pool);
    if (state != null) {
      b = b.tag("state", state);
    }
    b.description(description).register(registry);
  }

  private static Counter counter(MeterRegistry registry, String name, String pool, String description) {
    return Counter.builder(name).tag("pool", pool).description(description).register(registry);
  }
}
