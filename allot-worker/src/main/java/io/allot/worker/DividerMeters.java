package io.allot.worker;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * A member's meters, {@code allot.worker.*} tagged {@code pool} and {@code member}, bound when a divider built with
 * {@link Divider.Builder#meterRegistry} starts (the member id is known then). Every name and its Prometheus form:
 * docs/operations.md, "Metrics". Stateless; the meters read the divider and its {@link Counters}.
 */
final class DividerMeters {
  private DividerMeters() {}

  static void bind(MeterRegistry registry, Divider divider, Counters counters, String pool, String member) {
    Tags tags = Tags.of("pool", pool, "member", member);
    Gauge.builder("allot.worker.units", divider, d -> d.assigned().size()).tags(tags)
        .description("units this member owns, running or stopping").register(registry);
    Gauge.builder("allot.worker.lease.valid", divider, d -> d.leaseValid() ? 1 : 0).tags(tags)
        .description("1 while this member's lease is held, else 0").register(registry);
    counter(registry, "allot.worker.claims", tags.and("result", "granted"), divider, DividerStats::claims,
        "claims the store granted (each followed by a start)");
    counter(registry, "allot.worker.claims", tags.and("result", "refused"), divider, DividerStats::claimsRefused,
        "claims the store refused: the unit still had a live owner (normal during a handoff)");
    counter(registry, "allot.worker.self.fences", tags, divider, DividerStats::leaseLosses,
        "times the member stopped its units by itself because it could not trust its lease");
    counter(registry, "allot.worker.registrations", tags, divider, DividerStats::registrations,
        "registrations (1 + the re-registrations after a self-fence)");
    counter(registry, "allot.worker.renew.failures", tags, divider, DividerStats::renewFailures,
        "lease renewals that failed on the store");
    counter(registry, "allot.worker.releases", tags, divider, DividerStats::releases, "units released in the store");
    counter(registry, "allot.worker.store.errors", tags, divider, DividerStats::storeErrors,
        "reconciliation steps that failed on the store (retried)");
    Timer renew = Timer.builder("allot.worker.lease.renew").tags(tags)
        .description("one acknowledged lease renewal, sent to answered").register(registry);
    Timer gap = Timer.builder("allot.worker.handoff.gap").tags(tags)
        .description("from a unit's first refused claim (its previous owner still held it) to its start here")
        .register(registry);
    counters.renewNanos = n -> renew.record(n, TimeUnit.NANOSECONDS);
    counters.handoffGapNanos = n -> gap.record(n, TimeUnit.NANOSECONDS);
  }

  private static void counter(MeterRegistry registry, String name, Tags tags, Divider divider,
      ToLongFunction<DividerStats> stat, String description) {
    FunctionCounter.builder(name, divider, d -> stat.applyAsLong(d.stats())).tags(tags).description(description)
        .register(registry);
  }
}
