package io.allot.jobs;

import io.allot.store.LeaderLease;
import io.allot.store.Lease;
import io.allot.store.Leadership;
import java.time.Duration;

/**
 * Whether this dispatcher may dispatch: the holder of the lease {@code allot-jobs-dispatcher:<queue>}, elected with
 * {@link LeaderLease} (its step-down rule: trusted until the last successful renewal's send time + ttl - margin; a
 * refused renewal steps down at once), or, without leadership, always while it runs.
 *
 * <p>Guards: {@code running} is volatile, written under {@code this}; {@link #tick()} and {@link #close()} are
 * serialized on {@code this}, so a tick in flight cannot take the lease again after close() released it.
 * {@link #leading()} never blocks.
 */
final class LeaseKeeper {
  private final LeaderLease lease;
  private final String description;
  private volatile boolean running;

  /**
   * @param leadership the store role, or null to dispatch without leadership
   * @param onDeposed  run (on the ticking or closing thread) when the lease stops being trusted
   */
  LeaseKeeper(Leadership leadership, String name, String holder, Duration ttl, Runnable onDeposed) {
    this.description = leadership == null ? "no leadership" : "lease " + name;
    this.lease = leadership == null ? null : LeaderLease.builder(leadership, name, holder).ttl(ttl)
        .listener(new LeaderLease.Listener() {
          @Override
          public void elected(Lease lease) {}

          @Override
          public void deposed(Lease lease, String why) {
            onDeposed.run();
          }
        }).build();
  }

  synchronized void start() {
    running = true;
  }

  /** One step of the election (a store call); call at least every third of the lease TTL. */
  synchronized void tick() {
    if (running && lease != null) {
      lease.tick();
    }
  }

  /** True while this dispatcher may claim: running, and holding a trusted lease (or without leadership). */
  boolean leading() {
    return running && (lease == null || lease.isLeader());
  }

  /** The trusted lease's token, for the Hello; 0 without one. */
  long token() {
    return lease == null ? 0 : lease.current().map(Lease::token).orElse(0L);
  }

  /** Stops leading and gives the lease back, so a standby takes over at once. */
  synchronized void close() {
    running = false;
    if (lease != null) {
      lease.release();
    }
  }

  @Override
  public String toString() {
    return description;
  }
}
