package io.allot.jobs;

import io.allot.store.Membership;
import io.allot.store.StoreClock;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Where a {@link JobDispatcher} finds its worker endpoints: a set of gRPC targets ({@code host:port}), read again on
 * every tick of the dispatcher (streams are opened to new ones and closed to vanished ones).
 */
@FunctionalInterface
public interface EndpointSource {

  /** The endpoints now; may throw (e.g. a store call failing): the dispatcher then keeps the streams it has. */
  Set<String> endpoints();

  /** A fixed list of {@code host:port} targets. */
  static EndpointSource fixed(Collection<String> targets) {
    Objects.requireNonNull(targets, "targets");
    Set<String> set = new TreeSet<>();
    for (String t : targets) {
      if (t == null || t.isBlank()) {
        throw new IllegalArgumentException("endpoint target must be non-empty (host:port) but was '" + t + "'");
      }
      set.add(t.trim());
    }
    if (set.isEmpty()) {
      throw new IllegalArgumentException("at least one endpoint target is needed");
    }
    Set<String> copy = Set.copyOf(set);
    return () -> copy;
  }

  /** {@link #fixed(Collection)} of the given targets. */
  static EndpointSource fixed(String... targets) {
    return fixed(List.of(targets));
  }

  /**
   * The members of an allot pool whose lease is live (store time), by member id, which is the member's
   * {@code host:port}: endpoints register themselves as members (e.g. with allot-worker's registration) and the
   * dispatcher follows them. Members with affinity 0 are left out (drained).
   */
  static EndpointSource members(Membership pool, StoreClock clock) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(clock, "clock");
    return () -> {
      long now = clock.timeMillis();
      return pool.members().values().stream().filter(m -> m.liveAt(now) && m.affinity() > 0)
          .map(io.allot.store.MemberRecord::id).collect(Collectors.toUnmodifiableSet());
    };
  }
}
