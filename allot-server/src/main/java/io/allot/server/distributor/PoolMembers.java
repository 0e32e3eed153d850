package io.allot.server.distributor;

import io.allot.core.model.Names;
import io.allot.server.config.HostPort;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.SeedKeys;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a pool's services list consistent with its member records: each entry once, an entry without a record a
 * {@code host:port}; a member whose lease is live is added back, a record expired for longer than the cleanup age is
 * removed, and with {@code -remove-dead} a member down by pings is removed from the list. Logs each member's lease
 * ending once. Confined to the thread running the rounds.
 */
final class PoolMembers {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);
  private final SeedKeys seedKeys;
  private final Membership membership;
  private final String pool;
  private final Duration cleanupAge;
  private final BadData badData;
  /** Registered members in the list whose lease ended (for logging each transition once). */
  private final Set<String> leaseDown = new HashSet<>();

  PoolMembers(SeedKeys seedKeys, Membership membership, String pool, Duration cleanupAge, BadData badData) {
    this.seedKeys = seedKeys;
    this.membership = membership;
    this.pool = pool;
    this.cleanupAge = cleanupAge;
    this.badData = badData;
  }

  /**
   * The pool's members: the services list {@code raw}, each valid entry once, with the members whose lease is live
   * added back and the records stale for the cleanup age removed (from the store too).
   */
  LinkedHashSet<String> members(List<String> raw, Map<String, MemberRecord> records, LeaseJudge.Verdict leases) {
    LinkedHashSet<String> members = valid(raw, records.keySet());
    addBackLive(leases.live(), members);
    removeStale(leases.stale(), members);
    return members;
  }

  /**
   * The services list, each entry once: an entry without a member record must be a {@code host:port} (it is
   * pinged); a registered one is taken as it is (its lease judges it).
   */
  private LinkedHashSet<String> valid(List<String> raw, Set<String> registered) {
    LinkedHashSet<String> members = new LinkedHashSet<>();
    for (String m : raw) {
      if (!registered.contains(m)) {
        try {
          HostPort.parse(m);
        } catch (IllegalArgumentException e) {
          badData.report("member", m, pool + ": " + e.getMessage());
          continue;
        }
      }
      if (!members.add(m)) {
        badData.report("duplicate member", m, pool + ": member '" + m + "' is listed twice; counted once");
      }
    }
    return members;
  }

  /** A member whose lease is live belongs in the list (something removed it: an operator, an older -remove-dead). */
  private void addBackLive(Set<String> liveIds, LinkedHashSet<String> members) {
    for (String id : liveIds.stream().filter(x -> !members.contains(x)).sorted(Names.BYTE_ORDER).toList()) {
      if (seedKeys.addToList(pool, id)) {
        log.warn("pool={} member={} added back to {}: its lease is live", pool, id, pool);
      }
      members.add(id);
    }
  }

  /** Removes records expired for longer than the cleanup age; the store removes only those still expired. */
  private void removeStale(List<MemberRecord> stale, LinkedHashSet<String> members) {
    for (MemberRecord r : stale) {
      if (membership.removeIfExpired(r.id(), r.session())) {
        members.remove(r.id());
        log.info("pool={} member={} removed: its lease ended over {} s ago", pool, r.id(), cleanupAge.toSeconds());
      }
    }
  }

  /** Logs each member of {@code down} (registered, in the list, lease ended) whose lease ended since the last call. */
  void leaseDown(Set<String> down) {
    for (String m : down) {
      if (!leaseDown.contains(m)) {
        log.warn("pool={} member={} down: its lease ended", pool, m);
      }
    }
    leaseDown.clear();
    leaseDown.addAll(down);
  }

  /**
   * {@code -remove-dead}: removes members down by pings from the list. Only members without a record are ever
   * pinged, and the records are read again first, so a member that registered meanwhile stays (a live lease is never
   * removed; were it removed anyway, the next round adds it back).
   */
  void removeDead(LinkedHashSet<String> members, PingJudge pings) {
    Set<String> dead = pings.down();
    if (dead.isEmpty()) {
      return;
    }
    Set<String> registered = membership.members().keySet();
    for (String m : dead) {
      if (registered.contains(m)) {
        continue;
      }
      seedKeys.removeFromList(pool, m);
      members.remove(m);
      pings.forget(m);
      log.warn("pool={} member={} removed from {} (-remove-dead)", pool, m, pool);
    }
  }
}
