package io.allot.server.distributor;

import io.allot.server.ping.Pinger;
import java.time.Duration;
import java.util.List;

/**
 * What a distributor needs to know. Immutable.
 *
 * @param servicesNamespaces one services list key per pool
 * @param workunitsNamespace the work-units list key
 * @param distributionNamespace the distribution hash key
 * @param pollInterval time between cycles
 * @param pingTimeout deadline of one ping
 * @param downAfter consecutive failed pings before a member is marked down
 * @param removeDead remove a down member from its list and the hash (the original's behaviour)
 * @param leaderTtl lease time of a pool's leadership
 * @param strategy assignment strategy name
 * @param pingMode ping protocol
 * @param taskRetention how long a deleted long-running task's spec is kept as a tombstone once no member runs it
 */
public record DistributorSettings(
    List<String> servicesNamespaces,
    String workunitsNamespace,
    String distributionNamespace,
    Duration pollInterval,
    Duration pingTimeout,
    int downAfter,
    boolean removeDead,
    Duration leaderTtl,
    String strategy,
    Pinger.Mode pingMode,
    Duration taskRetention) {

  public static final int DEFAULT_DOWN_AFTER = 3;
  /** The default {@link #taskRetention()}: one hour, long enough to watch a deletion end. */
  public static final Duration DEFAULT_TASK_RETENTION = Duration.ofHours(1);

  /** Settings with the default task retention. */
  public DistributorSettings(List<String> servicesNamespaces, String workunitsNamespace, String distributionNamespace,
      Duration pollInterval, Duration pingTimeout, int downAfter, boolean removeDead, Duration leaderTtl,
      String strategy, Pinger.Mode pingMode) {
    this(servicesNamespaces, workunitsNamespace, distributionNamespace, pollInterval, pingTimeout, downAfter,
        removeDead, leaderTtl, strategy, pingMode, DEFAULT_TASK_RETENTION);
  }

  public DistributorSettings {
    servicesNamespaces = List.copyOf(servicesNamespaces);
    if (servicesNamespaces.isEmpty()) {
      throw new IllegalArgumentException("-services-namespaces: at least one services list key is needed");
    }
    for (String s : servicesNamespaces) {
      if (s.isBlank()) {
        throw new IllegalArgumentException("-services-namespaces: empty key in the list");
      }
    }
    if (workunitsNamespace == null || workunitsNamespace.isBlank()) {
      throw new IllegalArgumentException("-workunits-namespace: empty key");
    }
    if (distributionNamespace == null || distributionNamespace.isBlank()) {
      throw new IllegalArgumentException("-distribution-namespace: empty key");
    }
    if (downAfter < 1) {
      throw new IllegalArgumentException("-down-after: must be >= 1, got " + downAfter);
    }
    if (taskRetention == null || taskRetention.isNegative()) {
      throw new IllegalArgumentException("-task-retention: must be >= 0, got " + taskRetention);
    }
    if (leaderTtl.compareTo(pollInterval.plus(pingTimeout)) <= 0) {
      throw new IllegalArgumentException(
          "-leader-ttl (" + leaderTtl.toMillis() + "ms) must be longer than -poll-interval + -ping-timeout ("
              + pollInterval.plus(pingTimeout).toMillis() + "ms), or the leader loses its lease between two cycles");
    }
  }

  /** The default leader TTL for the given timings: 3 cycles, at least 2 s. */
  public static Duration defaultLeaderTtl(Duration pollInterval, Duration pingTimeout) {
    Duration d = pollInterval.plus(pingTimeout).multipliedBy(3);
    return d.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : d;
  }
}
