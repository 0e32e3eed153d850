package io.allot.store;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election over a {@link Leadership} lease, the one recipe every leader in allot uses (the distributor of a
 * pool, the job dispatcher of a queue, the writer of live routing weights), in the spirit of Curator's
 * {@code LeaderLatch} but without threads of its own: the owner calls {@link #tick()} from its loop, at least every
 * {@code ttl / 3}.
 *
 * <p><b>The step-down rule.</b> The holder trusts its lease until {@code sent + ttl - margin} on its own monotonic
 * clock, where {@code sent} is when the last successful acquisition or renewal was <em>sent</em>: the store set the
 * expiry at or after that moment, so it cannot give the lease to anyone else before then (no clock is compared
 * between hosts; {@code margin} absorbs clock-rate drift and scheduling delay). A renewal the store refuses steps
 * down at once; a renewal that fails to reach the store keeps the lease until that deadline, then steps down
 * ({@link #current()} turns empty the moment it passes, whether or not {@code tick()} ran). Writes under the lease
 * carry its fencing {@link Lease#token() token}, so a holder that stepped down too late is still fenced by the store.
 *
 * <p>Thread-safe: {@code tick()} and {@link #release()} are serialized; {@link #current()} and {@link #isLeader()}
 * read volatile state and never block. The listener runs on the thread that called {@code tick()} or
 * {@code release()}, after the state changed. Tests: {@code LeaderLeaseTest}.
 */
public final class LeaderLease {
  private static final Logger log = LoggerFactory.getLogger(LeaderLease.class);

  /** Told when this holder becomes leader and when it stops being one. */
  public interface Listener {
    /** The lease was acquired; writes may carry its token. */
    void elected(Lease lease);

    /**
     * The lease is no longer trusted: refused at renewal, not renewed before its local deadline, or released.
     *
     * @param why for logs, e.g. "the lease was lost (expired or taken over)"
     */
    void deposed(Lease lease, String why);
  }

  private final Leadership leadership;
  private final String name;
  private final String holder;
  private final Duration ttl;
  private final long trustNanos;
  private final LongSupplier nanos;
  private final Listener listener;

  /** The lease held, or null; written under {@code this}, volatile for lock-free reads. */
  private volatile Lease held;
  /** Local monotonic time until which {@link #held} is trusted; written under {@code this}, volatile. */
  private volatile long trustedUntilNanos;

  private LeaderLease(Builder b) {
    this.leadership = b.leadership;
    this.name = b.name;
    this.holder = b.holder;
    this.ttl = b.ttl;
    this.trustNanos = b.ttl.minus(b.margin).toNanos();
    this.nanos = b.nanos;
    this.listener = b.listener;
  }

  /**
   * A leader lease named {@code name} for {@code holder} over {@code leadership}.
   *
   * @throws NullPointerException naming a missing argument
   */
  public static Builder builder(Leadership leadership, String name, String holder) {
    return new Builder(leadership, name, holder);
  }

  /** The lease name. */
  public String name() {
    return name;
  }

  /** The holder name this process competes under. */
  public String holder() {
    return holder;
  }

  /** The lease time asked of the store at each acquisition and renewal. */
  public Duration ttl() {
    return ttl;
  }

  /**
   * One step of the election: renews the lease when held (stepping down by the rule above), else tries to acquire it.
   * A store that cannot be reached is not an error here: the lease simply is not acquired, or is kept until its
   * deadline.
   *
   * @return the lease now trusted, or empty
   */
  public synchronized Optional<Lease> tick() {
    Lease lease = held;
    if (lease != null && nanos.getAsLong() - trustedUntilNanos >= 0) {
      stepDown(lease, "the lease ran out before it was renewed");
      lease = null;
    }
    long sent = nanos.getAsLong();
    if (lease == null) {
      Optional<Lease> got;
      try {
        got = leadership.tryAcquire(name, holder, ttl);
      } catch (StoreUnavailableException e) {
        log.debug("lease {}: cannot reach the store to acquire it: {}", name, e.getMessage());
        return Optional.empty();
      }
      if (got.isPresent()) {
        held = got.get();
        trustedUntilNanos = sent + trustNanos;
        log.info("lease {}: {} leads (token {})", name, holder, got.get().token());
        listener.elected(got.get());
      }
      return got;
    }
    boolean renewed;
    try {
      renewed = leadership.renew(lease, ttl);
    } catch (StoreUnavailableException e) {
      if (nanos.getAsLong() - trustedUntilNanos >= 0) {
        stepDown(lease, "the lease could not be renewed before it ran out (" + e.getMessage() + ")");
        return Optional.empty();
      }
      log.debug("lease {}: renewal failed, trusted for {} ms more: {}", name,
          TimeUnit.NANOSECONDS.toMillis(trustedUntilNanos - nanos.getAsLong()), e.getMessage());
      return Optional.of(lease);
    }
    if (!renewed) {
      stepDown(lease, "the lease was lost (expired or taken over)");
      return Optional.empty();
    }
    trustedUntilNanos = sent + trustNanos;
    return Optional.of(lease);
  }

  /** The lease while it is trusted (held, and its local deadline not passed); never calls the store. */
  public Optional<Lease> current() {
    Lease lease = held;
    if (lease == null || nanos.getAsLong() - trustedUntilNanos >= 0) {
      return Optional.empty();
    }
    return Optional.of(lease);
  }

  /** True while {@link #current()} holds a lease. */
  public boolean isLeader() {
    return current().isPresent();
  }

  /**
   * Steps down and gives the lease back (compare-and-delete), so a standby takes over at once instead of after the
   * lease time. If the store cannot be reached the lease lapses by itself.
   */
  public synchronized void release() {
    Lease lease = held;
    if (lease == null) {
      return;
    }
    stepDown(lease, "released");
    try {
      leadership.release(lease);
    } catch (StoreUnavailableException e) {
      log.warn("lease {}: could not release it (it lapses by itself): {}", name, e.getMessage());
    }
  }

  private void stepDown(Lease lease, String why) {
    held = null;
    log.warn("lease {}: {} steps down: {}", name, holder, why);
    listener.deposed(lease, why);
  }

  /**
   * Runs {@code action} under {@code name}'s lease, for one-shot writers: acquires it (polling every 50 ms for at most
   * {@code wait} while someone else holds it), runs the action with it, then releases it.
   *
   * @throws IllegalStateException naming the holder if the lease stayed held for {@code wait}
   */
  public static <T> T withLease(Leadership leadership, String name, String holder, Duration ttl, Duration wait,
      Function<Lease, T> action) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<Lease> lease = leadership.tryAcquire(name, holder, ttl);
      if (lease.isPresent()) {
        try {
          return action.apply(lease.get());
        } finally {
          leadership.release(lease.get());
        }
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException("lease '" + name + "' is held by "
            + leadership.current(name).map(Lease::holder).orElse("someone") + " (waited " + wait.toMillis()
            + " ms)");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for lease '" + name + "'");
      }
    }
  }

  /** Builds a {@link LeaderLease}; every setting is checked by {@link #build()}, which names a bad one. */
  public static final class Builder {
    private final Leadership leadership;
    private final String name;
    private final String holder;
    private Duration ttl = Duration.ofSeconds(10);
    private Duration margin;
    private LongSupplier nanos = System::nanoTime;
    private Listener listener = new Listener() {
      @Override
      public void elected(Lease lease) {}

      @Override
      public void deposed(Lease lease, String why) {}
    };

    private Builder(Leadership leadership, String name, String holder) {
      this.leadership = Objects.requireNonNull(leadership, "leadership");
      this.name = Objects.requireNonNull(name, "name");
      this.holder = Objects.requireNonNull(holder, "holder");
    }

    /** The lease time (default 10 s, 1 ms to 1 day); tick at least every third of it. */
    public Builder ttl(Duration ttl) {
      this.ttl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    /** How much sooner than {@code sent + ttl} the holder stops trusting its lease (default a tenth of the ttl). */
    public Builder margin(Duration margin) {
      this.margin = Objects.requireNonNull(margin, "margin");
      return this;
    }

    /** The monotonic clock in nanoseconds (default {@link System#nanoTime()}; tests and simulators inject theirs). */
    public Builder nanoClock(LongSupplier nanos) {
      this.nanos = Objects.requireNonNull(nanos, "nanoClock");
      return this;
    }

    /** Told of elections and step-downs. */
    public Builder listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The lease.
     *
     * @throws IllegalArgumentException naming the setting: an empty name or holder, a ttl outside 1 ms to
     *     {@link Durations#MAX_TIMEOUT} (1 day), a margin not shorter than the ttl
     */
    public LeaderLease build() {
      if (name.isEmpty()) {
        throw new IllegalArgumentException("name: must not be empty");
      }
      if (holder.isEmpty()) {
        throw new IllegalArgumentException("holder: must not be empty");
      }
      Durations.check("ttl", ttl, Duration.ofMillis(1), Durations.MAX_TIMEOUT);
      if (margin == null) {
        margin = ttl.dividedBy(10);
      }
      if (margin.isNegative() || margin.compareTo(ttl) >= 0) {
        throw new IllegalArgumentException("margin: must be 0 or more and shorter than the ttl (" + ttl.toMillis()
            + " ms) but was " + margin);
      }
      return new LeaderLease(this);
    }
  }
}
