package io.allot.tasks.service;

import java.util.Map;
import java.util.Objects;

/**
 * A member of a pool as the API shows it. Immutable.
 *
 * @param id               the member id ({@code host:port})
 * @param up               true if its lease is live at store time now
 * @param leaseUntilMillis when its lease expires (store time, epoch milliseconds)
 * @param affinity         its weight (0 = no tasks)
 * @param capacity         the most cost units it carries, or null for no limit
 * @param used             the sum of the costs of the live tasks the table gives it
 * @param version          its {@code version} attribute, or null
 * @param judgedBy         {@value #LEASE} (a member with a member record and a lease) or {@value #PING} (an
 *                         original-style service without one, judged live by the distributor's pings; its
 *                         {@code leaseUntilMillis} is 0)
 * @param zone             its {@code zone} attribute, or null
 * @param labels           its other attributes (neither {@code version} nor {@code zone}), sorted by name; empty for
 *                         none
 */
public record MemberView(String id, boolean up, long leaseUntilMillis, int affinity, Integer capacity, long used,
    String version, String judgedBy, String zone, Map<String, String> labels) {
  /** {@link #judgedBy()} of a member with a lease. */
  public static final String LEASE = "lease";
  /** {@link #judgedBy()} of a member judged by pings. */
  public static final String PING = "ping";

  public MemberView {
    Objects.requireNonNull(id, "id");
    if (!LEASE.equals(judgedBy) && !PING.equals(judgedBy)) {
      throw new IllegalArgumentException("judgedBy must be 'lease' or 'ping' but was " + judgedBy);
    }
    labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
  }

  /** A member without zone or labels. */
  public MemberView(String id, boolean up, long leaseUntilMillis, int affinity, Integer capacity, long used,
      String version, String judgedBy) {
    this(id, up, leaseUntilMillis, affinity, capacity, used, version, judgedBy, null, Map.of());
  }

  /** A member judged by its lease. */
  public MemberView(String id, boolean up, long leaseUntilMillis, int affinity, Integer capacity, long used,
      String version) {
    this(id, up, leaseUntilMillis, affinity, capacity, used, version, LEASE);
  }
}
