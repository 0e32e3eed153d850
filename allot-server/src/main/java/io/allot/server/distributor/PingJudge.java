package io.allot.server.distributor;

import io.allot.server.ping.Pinger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the distributor judges a member without a member record (an original-style service that only answers pings):
 * down after {@code downAfter} consecutive failed pings, up again at its first answer. Within those failures a member
 * keeps its units if it is in the table in force; one that has not answered yet is not live. Not thread-safe: the
 * pool's loop owns it.
 */
final class PingJudge {
  private static final Logger log = LoggerFactory.getLogger(PingJudge.class);

  private final String pool;
  private final int downAfter;
  // all three confined to the pool's loop thread
  private final Map<String, Integer> failures = new HashMap<>();
  /** Members pinged at least once (answered or not). */
  private final Set<String> pinged = new HashSet<>();
  private final Set<String> down = new HashSet<>();

  PingJudge(String pool, int downAfter) {
    this.pool = pool;
    this.downAfter = downAfter;
  }

  /** Counts one ping's outcome; true if it failed. */
  boolean record(Pinger.Result r) {
    pinged.add(r.address());
    if (r.ok()) {
      failures.remove(r.address());
      if (down.remove(r.address())) {
        log.info("pool={} member={} up", pool, r.address());
      }
      return false;
    }
    int n = failures.merge(r.address(), 1, Integer::sum);
    if (n >= downAfter && down.add(r.address())) {
      log.warn("pool={} member={} down after {} failed pings: {}", pool, r.address(), n, r.error());
    } else if (n < downAfter) {
      log.debug("pool={} member={} ping failed ({}/{}): {}", pool, r.address(), n, downAfter, r.error());
    }
    return true;
  }

  /** Forgets every member but {@code pinged} (those left the list, or registered and are judged by their lease). */
  void retain(Set<String> pinged) {
    failures.keySet().retainAll(pinged);
    down.retainAll(pinged);
    this.pinged.retainAll(pinged);
  }

  /** The members of {@code members} never pinged yet (new in the list). */
  Set<String> neverPinged(Set<String> members) {
    Set<String> out = new HashSet<>();
    for (String m : members) {
      if (!pinged.contains(m)) {
        out.add(m);
      }
    }
    return out;
  }

  /** Forgets {@code member} (removed from the list). */
  void forget(String member) {
    failures.remove(member);
    down.remove(member);
    pinged.remove(member);
  }

  /** Live: not down, and either its last ping answered or it is in the table in force ({@code inTable}). */
  boolean live(String member, boolean inTable) {
    return !down.contains(member) && (!failures.containsKey(member) || inTable);
  }

  /** True if its last ping failed. */
  boolean failing(String member) {
    return failures.containsKey(member);
  }

  /** The members down by pings. */
  Set<String> down() {
    return Set.copyOf(down);
  }
}
