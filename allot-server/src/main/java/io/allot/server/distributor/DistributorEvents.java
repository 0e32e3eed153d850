package io.allot.server.distributor;

import io.allot.core.assign.Table;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventWriter;
import io.allot.store.events.NewEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a pool's distributor tells the event history (best-effort, {@link EventWriter}), as actor
 * {@value #ACTOR}: the lead taken, members up and down (the live set compared round to round while leading; the
 * first round of a lead is the baseline, not news), and each table published with the units it moved. Confined to
 * the thread running the pool's rounds.
 */
final class DistributorEvents {
  static final String ACTOR = "distributor";
  /** How many moved units a table-published event names. */
  static final int NAMED_MOVES = 10;

  private final EventWriter writer;
  private final String pool;
  /** The live members of the last round while leading; null before the first (rounds thread). */
  private Set<String> live;

  DistributorEvents(EventWriter writer, String pool) {
    this.writer = writer;
    this.pool = pool;
  }

  /** This process took the lead of the pool. */
  void leader(String holder, long token) {
    live = null;
    later(EventKind.LEADER_CHANGED, ACTOR, holder, holder + " leads pool " + pool + " (token " + token
        + ")");
  }

  /** This process stopped leading: the next lead starts a new baseline. */
  void steppedDown() {
    live = null;
  }

  /** The live members of a round: those new since the last round are up, those gone are down. */
  void liveMembers(Set<String> now, Set<String> down) {
    Set<String> before = live;
    live = new HashSet<>(now);
    if (before == null) {
      return;
    }
    for (String m : new TreeSet<>(now)) {
      if (!before.contains(m)) {
        later(EventKind.MEMBER_UP, ACTOR, m, "live");
      }
    }
    for (String m : new TreeSet<>(before)) {
      if (!now.contains(m)) {
        later(EventKind.MEMBER_DOWN, ACTOR, m, down.contains(m) ? "lease ended or pings failed"
            : "left the pool");
      }
    }
  }

  /** A table was published at {@code epoch} replacing {@code previous}. */
  void published(long epoch, Table previous, Table table) {
    later(EventKind.TABLE_PUBLISHED, ACTOR, "epoch " + epoch, describe(epoch, previous, table));
  }

  /**
   * Writes on the writer's background thread ({@link EventWriter#writeLater}): a round (whose table moves units, and
   * whose timing bounds failover) never waits for the history; the events keep their order.
   */
  private void later(EventKind kind, String actor, String subject, String detail) {
    writer.writeLater(new NewEvent(pool, kind, actor, subject, detail));
  }

  /** {@code epoch N: K of U units moved: u a -> b, ...}. */
  static String describe(long epoch, Table previous, Table table) {
    Map<String, String> before = previous.ownerIndex();
    Map<String, String> after = table.ownerIndex();
    List<String> moves = new ArrayList<>();
    int moved = 0;
    for (Map.Entry<String, String> e : after.entrySet()) { // unsorted: a table may hold 100 000 units
      String a = before.get(e.getKey());
      if (!e.getValue().equals(a)) {
        moved++;
        if (moves.size() < NAMED_MOVES) {
          moves.add(e.getKey() + " " + (a == null ? "(none)" : a) + " -> " + e.getValue());
        }
      }
    }
    for (Map.Entry<String, String> e : before.entrySet()) {
      if (!after.containsKey(e.getKey())) {
        moved++;
        if (moves.size() < NAMED_MOVES) {
          moves.add(e.getKey() + " " + e.getValue() + " -> (none)");
        }
      }
    }
    StringBuilder s = new StringBuilder("epoch ").append(epoch).append(": ").append(moved).append(" of ")
        .append(table.unitCount()).append(" units moved");
    if (!moves.isEmpty()) {
      s.append(": ").append(String.join(", ", moves));
      if (moved > moves.size()) {
        s.append(", and ").append(moved - moves.size()).append(" more");
      }
    }
    return s.toString();
  }
}
