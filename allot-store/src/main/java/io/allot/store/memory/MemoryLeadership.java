package io.allot.store.memory;

import io.allot.store.Leadership;
import io.allot.store.Lease;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Leadership} of the {@link MemoryStore}: the leases and last tokens of {@link MemoryState}, under its lock.
 * Immutable (the state is the store's).
 */
final class MemoryLeadership implements Leadership {
  private final MemoryState s;

  MemoryLeadership(MemoryState state) {
    this.s = state;
  }

  @Override
  public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    long ttlNanos = MemoryState.ttlNanos(ttl);
    return s.locked(() -> {
      if (s.liveLease(name) != null) {
        return Optional.empty();
      }
      long token = s.nextToken(s.leaseTokens.get(name));
      s.leaseTokens.put(name, token);
      s.leases.put(name, new MemoryState.Held(holder, token, s.nanos() + ttlNanos));
      return Optional.of(new Lease(name, holder, token));
    });
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    Objects.requireNonNull(lease, "lease");
    long ttlNanos = MemoryState.ttlNanos(ttl);
    return s.locked(() -> {
      if (!s.isCurrent(lease)) {
        return false;
      }
      s.leases.put(lease.name(), new MemoryState.Held(lease.holder(), lease.token(), s.nanos() + ttlNanos));
      return true;
    });
  }

  @Override
  public void release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    s.lockedRun(() -> {
      if (s.isCurrent(lease)) {
        s.leases.remove(lease.name());
      }
    });
  }

  @Override
  public Optional<Lease> current(String name) {
    Objects.requireNonNull(name, "name");
    return s.locked(() -> {
      MemoryState.Held held = s.liveLease(name);
      return held == null ? Optional.empty() : Optional.of(new Lease(name, held.holder(), held.token()));
    });
  }
}
