package io.allot.spring;

import io.allot.worker.Divider;
import io.allot.worker.DividerStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.function.ToLongFunction;

/** A member's gauges and counters in the application's {@link MeterRegistry}, tagged with its pool and role. */
final class DividerMeters {
  private DividerMeters() {}

  /** Binds {@code divider}'s meters: {@code allot.member.units}, {@code allot.member.lease.valid}, counters. */
  static void bind(MeterRegistry registry, Divider divider, String pool, String role) {
    Gauge.builder("allot.member.units", divider, d -> d.assigned().size()).tag("pool", pool).tag("role", role)
        .description("units (tasks) this member owns, running or stopping").register(registry);
    Gauge.builder("allot.member.lease.valid", divider, d -> d.leaseValid() ? 1 : 0).tag("pool", pool)
        .tag("role", role).description("1 while this member's lease is held, else 0").register(registry);
    Map<String, ToLongFunction<DividerStats>> counters = Map.of(
        "allot.member.registrations", DividerStats::registrations,
        "allot.member.lease.losses", DividerStats::leaseLosses,
        "allot.member.claims", DividerStats::claims,
        "allot.member.releases", DividerStats::releases,
        "allot.member.store.errors", DividerStats::storeErrors);
    counters.forEach((name, stat) -> FunctionCounter.builder(name, divider, d -> stat.applyAsLong(d.stats()))
        .tag("pool", pool).tag("role", role).register(registry));
  }
}
