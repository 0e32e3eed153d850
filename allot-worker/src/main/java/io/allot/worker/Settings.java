package io.allot.worker;

import io.allot.store.Durations;
import io.allot.store.MemberMeta;
import io.allot.store.Safety;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A divider's settings: checked, immutable, built by {@link Divider.Builder#build()}. The constructor checks every
 * setting and names the wrong one first in its {@link IllegalArgumentException} (the message starts with the
 * setting's name). Durations are bounded by {@link Durations#check}: leases and intervals and the shutdown grace at
 * most {@link Durations#MAX_TIMEOUT} (1 day), the release hold at most {@link Durations#MAX_HOLD} (30 days).
 *
 * @param pool             the services list key (the distributor's pool)
 * @param distribution     the distribution hash (table) key
 * @param host             the host part of the member id (what the distributor dials)
 * @param bindAddress      where the divider's own ping server binds; null = derived from {@code host}
 * @param port             the ping port: the divider's own server's (0 = any free port), or the application
 *                         server's when {@code appServer} (0 = taken from the server at start)
 * @param appServer        true: pings are answered by the application's own gRPC server on {@code port}
 * @param affinity         the initial affinity
 * @param capacity         the most units owned at once
 * @param attributes       published with the member: version, zone, labels
 * @param leaseTtl         the member lease, in store time
 * @param renewEvery       time between two renewals
 * @param fenceMargin      how long before the lease can expire the member fences itself
 * @param syncInterval     time between two timed reconciliation rounds
 * @param maxConcurrentMoves REASSIGNED stops not yet released at a time
 * @param claimBatch       claims per round (one store round trip)
 * @param releaseHold      how long a released unit is not claimed again
 * @param shutdownGrace    how long cancel waits for SHUTDOWN stops to be confirmed
 * @param ownershipCheck   how often the loop reads the pool's owners for runs its session owns without knowing
 */
record Settings(
    String pool,
    String distribution,
    String host,
    String bindAddress,
    int port,
    boolean appServer,
    int affinity,
    int capacity,
    Map<String, String> attributes,
    Duration leaseTtl,
    Duration renewEvery,
    Duration fenceMargin,
    Duration syncInterval,
    int maxConcurrentMoves,
    int claimBatch,
    Duration releaseHold,
    Duration shutdownGrace,
    Duration ownershipCheck) {

  Settings {
    if (pool == null || pool.isEmpty()) {
      throw new IllegalArgumentException("pool must be set and non-empty but was " + quote(pool));
    }
    if (distribution == null || distribution.isEmpty()) {
      throw new IllegalArgumentException("distribution must be a non-empty hash key but was " + quote(distribution));
    }
    if (host == null || host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("host must be a non-empty host name or address but was " + quote(host));
    }
    if (bindAddress != null && bindAddress.isBlank()) {
      throw new IllegalArgumentException("bindAddress must not be blank");
    }
    if (appServer) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("pingsOnAppServer must name the application server's port, in [0, 65535]"
            + " (0 = the port of the server given to start(Server)), but was " + port);
      }
      if (bindAddress != null) {
        throw new IllegalArgumentException("bindAddress " + quote(bindAddress) + " cannot be used with "
            + "pingsOnAppServer: the divider binds no port of its own");
      }
    } else if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in [0, 65535] (0 = any free port) but was " + port);
    }
    attributes = meta(affinity, capacity, attributes).attributes(); // checked in the order of the message
    Durations.check("leaseTtl", leaseTtl, Duration.ofMillis(1), Durations.MAX_TIMEOUT);
    Durations.check("renewEvery", renewEvery, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    Durations.check("fenceMargin", fenceMargin, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    Durations.check("syncInterval", syncInterval, Durations.POSITIVE, Durations.MAX_TIMEOUT);
    if (fenceMargin.compareTo(leaseTtl) >= 0) {
      throw new IllegalArgumentException("fenceMargin (" + fenceMargin.toMillis() + " ms) must be shorter than "
          + "leaseTtl (" + leaseTtl.toMillis() + " ms)");
    }
    Duration window = leaseTtl.minus(fenceMargin);
    if (renewEvery.compareTo(window) >= 0) {
      throw new IllegalArgumentException("renewEvery (" + renewEvery.toMillis() + " ms) must be shorter than "
          + "leaseTtl - fenceMargin (" + window.toMillis() + " ms), or the member fences itself between two renewals");
    }
    if (maxConcurrentMoves < 1) {
      throw new IllegalArgumentException("maxConcurrentMoves must be >= 1 but was " + maxConcurrentMoves);
    }
    if (claimBatch < 1) {
      throw new IllegalArgumentException("claimBatch must be >= 1 but was " + claimBatch);
    }
    Durations.check("releaseHold", releaseHold, Duration.ZERO, Durations.MAX_HOLD);
    Durations.check("shutdownGrace", shutdownGrace, Duration.ZERO, Durations.MAX_TIMEOUT);
    Durations.check("ownershipCheck", ownershipCheck, Durations.POSITIVE, Durations.MAX_TIMEOUT);
  }

  /** What is published at registration: the initial affinity, the capacity, the attributes. */
  MemberMeta meta() {
    return new MemberMeta(affinity, capacity, attributes);
  }

  /**
   * The metadata, checked so that the message names the builder setting: affinity, capacity, {@code version},
   * {@code zone}, then any other {@code attribute}.
   */
  private static MemberMeta meta(int affinity, int capacity, Map<String, String> attributes) {
    if (attributes == null) {
      throw new IllegalArgumentException("attributes must not be null");
    }
    if (affinity < 0) {
      throw new IllegalArgumentException("affinity must be >= 0 but was " + affinity);
    }
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0 but was " + capacity);
    }
    for (String name : new String[] {MemberMeta.VERSION, MemberMeta.ZONE}) {
      if (attributes.containsKey(name)) {
        String v = attributes.get(name);
        if (v == null || v.isBlank()) {
          throw new IllegalArgumentException(name + " must be a non-blank string but was " + quote(v));
        }
      }
    }
    try {
      return new MemberMeta(affinity, capacity, attributes);
    } catch (IllegalArgumentException | NullPointerException e) {
      String m = String.valueOf(e.getMessage());
      throw new IllegalArgumentException(m.startsWith("attribute") ? m : "attribute: " + m, e);
    }
  }

  /**
   * A warning if {@code leaseTtl} is longer than the store's lost-state guard ({@link Safety#lostStateGuard()}): after
   * the store lost state, it then lets other members claim this member's units while this member may still trust its
   * lease. Empty if the guard covers the lease.
   */
  Optional<String> guardWarning(Safety safety) {
    if (leaseTtl.compareTo(safety.lostStateGuard()) <= 0) {
      return Optional.empty();
    }
    return Optional.of("leaseTtl (" + leaseTtl.toMillis() + " ms) is longer than the store's lost-state guard ("
        + safety.lostStateGuard().toMillis() + " ms): if the store loses state (a restart without persistence, a"
        + " failover), another member may claim this member's units while it still runs them; raise the store's guard"
        + " to at least leaseTtl (store URI parameter guard= for Redis, allot_guard= for PostgreSQL) or lower"
        + " leaseTtl");
  }

  /** The address the divider's own ping server binds: {@code bindAddress}, else the host if loopback, else any. */
  String resolvedBindAddress() {
    if (bindAddress != null) {
      return bindAddress;
    }
    return isLoopback(host) ? host : "0.0.0.0";
  }

  long ttlNanos() {
    return leaseTtl.toNanos();
  }

  long renewNanos() {
    return renewEvery.toNanos();
  }

  long marginNanos() {
    return fenceMargin.toNanos();
  }

  long syncNanos() {
    return syncInterval.toNanos();
  }

  long ownCheckNanos() {
    return ownershipCheck.toNanos();
  }

  /** The default {@code ownershipCheck}: this many sync intervals. */
  static final int OWN_CHECK_SYNCS = 20;

  /**
   * {@value #OWN_CHECK_SYNCS} times {@code syncInterval}, at most the longest timeout; a null or non-positive
   * interval is returned as it is, for the check of {@code syncInterval} to name.
   */
  static Duration defaultOwnershipCheck(Duration syncInterval) {
    if (syncInterval == null || syncInterval.isNegative() || syncInterval.isZero()
        || syncInterval.compareTo(Durations.MAX_TIMEOUT.dividedBy(OWN_CHECK_SYNCS)) > 0) {
      return syncInterval == null || syncInterval.isNegative() || syncInterval.isZero() ? syncInterval
          : Durations.MAX_TIMEOUT;
    }
    return syncInterval.multipliedBy(OWN_CHECK_SYNCS);
  }

  long holdNanos() {
    return releaseHold.toNanos();
  }

  long graceNanos() {
    return shutdownGrace.toNanos();
  }

  /** How often the watchdog checks the deadline: a fifth of the margin, half the renewal period, 1 to 50 ms. */
  long watchdogPeriodNanos() {
    return Math.max(1_000_000L, Math.min(50_000_000L, Math.min(marginNanos() / 5, renewNanos() / 2)));
  }

  private static boolean isLoopback(String host) {
    return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
