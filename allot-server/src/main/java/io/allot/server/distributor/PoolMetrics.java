package io.allot.server.distributor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one pool's distributor, {@code allot.distributor.*} tagged with the pool, registered once
 * (the names and their Prometheus forms: docs/operations.md, "Metrics"). Thread-safe (atomics and meters).
 */
final class PoolMetrics {
  final AtomicInteger up = new AtomicInteger();
  final AtomicInteger down = new AtomicInteger();
  final AtomicInteger units = new AtomicInteger();
  final AtomicInteger unassigned = new AtomicInteger();
  final AtomicInteger leader = new AtomicInteger();
  final AtomicLong epoch = new AtomicLong();
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
    Gauge.builder("allot.distributor.members", up, AtomicInteger::get).tag("pool", pool).tag("state", "live")
        .description("live members (lease held, or answering pings)").register(registry);
    Gauge.builder("allot.distributor.members", down, AtomicInteger::get).tag("pool", pool).tag("state", "down")
        .description("members judged down").register(registry);
    Gauge.builder("allot.distributor.units", this, m -> m.units.get() - m.unassigned.get()).tag("pool", pool)
        .tag("state", "placed").description("units placed on a member by the last computation").register(registry);
    Gauge.builder("allot.distributor.units", unassigned, AtomicInteger::get).tag("pool", pool)
        .tag("state", "unplaced").description("units no member could take (capacity)").register(registry);
    Gauge.builder("allot.distributor.leader", leader, AtomicInteger::get).tag("pool", pool)
        .description("1 while this process leads the pool").register(registry);
    Gauge.builder("allot.distributor.table.epoch", epoch, AtomicLong::get).tag("pool", pool)
        .description("the epoch of the table this process published last").register(registry);
    tableChanges = counter(registry, "allot.distributor.table.changes", pool, "tables published");
    badData = counter(registry, "allot.distributor.bad.data", pool, "invalid entries found in the store (skipped)");
    storeErrors = counter(registry, "allot.distributor.store.errors", pool, "rounds that failed on the store");
    lostState = counter(registry, "allot.distributor.lost.state", pool,
        "publications whose epoch went backwards: the store lost state");
    cycle = Timer.builder("allot.distributor.rounds").tag("pool", pool).description("one distributor round")
        .register(registry);
    ping = Timer.builder("allot.distributor.ping").tag("pool", pool).publishPercentileHistogram()
        .description("ping latency").register(registry);
    compute = Timer.builder("allot.distributor.compute").tag("pool", pool).description("table computation")
        .register(registry);
    publish = Timer.builder("allot.distributor.publish").tag("pool", pool).description("table write")
        .register(registry);
    pingFailures = DistributionSummary.builder("allot.distributor.ping.failures").tag("pool", pool)
        .description("failed pings per round").register(registry);
  }

  private static Counter counter(MeterRegistry registry, String name, String pool, String description) {
    return Counter.builder(name).tag("pool", pool).description(description).register(registry);
  }
}
