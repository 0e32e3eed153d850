package io.allot.spring;

import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.worker.Divider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * allot's part of {@code /actuator/health} (the contributor {@code allot}): DOWN when the store does not answer (its
 * clock is read), or when a started member does not hold its lease (not registered yet, fenced after a lost lease, or
 * left); details: the store, its safety settings (lost-state guard, clock margin, whether a restart may lose state,
 * the connect-time findings) and per member its id, lease, units and counters.
 */
public final class AllotHealthIndicator implements HealthIndicator {
  private final Store store;
  /** Role ("units", "tasks") to its member; immutable. */
  private final Map<String, Supplier<Divider>> members;

  /** Health of {@code store} and of the members {@code members} gives (role to divider; a null divider is skipped). */
  public AllotHealthIndicator(Store store, Map<String, Supplier<Divider>> members) {
    this.store = Objects.requireNonNull(store, "store");
    this.members = Map.copyOf(members);
  }

  @Override
  public Health health() {
    Health.Builder health = Health.up().withDetail("store", store.describe());
    Safety safety = store.safety();
    health.withDetail("lostStateGuard", safety.lostStateGuard().toString())
        .withDetail("clockMargin", safety.clockMargin().toString())
        .withDetail("lossPossible", safety.lossPossible());
    if (!safety.findings().isEmpty()) {
      health.withDetail("findings", safety.findings());
    }
    try {
      store.clock().timeMillis();
    } catch (RuntimeException e) {
      health.down().withDetail("storeError", String.valueOf(e.getMessage()));
    }
    members.forEach((role, supplier) -> {
      Divider d = supplier.get();
      if (d == null) {
        return;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("member", memberId(d));
      m.put("leaseValid", d.leaseValid());
      m.put("units", d.assigned().size());
      m.put("leaseLosses", d.stats().leaseLosses());
      m.put("storeErrors", d.stats().storeErrors());
      health.withDetail(role, m);
      if (!d.leaseValid()) {
        health.down();
      }
    });
    return health.build();
  }

  private static String memberId(Divider d) {
    try {
      return d.memberId();
    } catch (IllegalStateException e) {
      return "(not started)";
    }
  }
}
