package io.allot.server.distributor;

import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import io.allot.store.UnitHold;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Honours holds, whatever the strategy: a member that released a unit with a hold ({@link
 * io.allot.store.Ownership#release(String, String, long, java.time.Duration)}) declines it while the hold lasts, so
 * the distributor computes the table without the held units ({@link #binding}) and then gives each held unit to the
 * least-loaded eligible live member ({@link #place}). Pure and deterministic: the result depends on the inputs only,
 * never on the order of the collections.
 */
final class HoldPlacement {
  private HoldPlacement() {}

  /**
   * The holds that bind: on a unit of {@code units}, declined by a member of {@code live}, by unit. A hold of a
   * member that is not live changes nothing (no unit goes to such a member anyway), so it is left out and the table
   * stays the strategy's own.
   */
  static Map<String, UnitHold> binding(Map<String, UnitHold> holds, Set<String> units, Collection<Member> live) {
    Set<String> liveIds = new HashSet<>();
    live.forEach(m -> liveIds.add(m.id()));
    Map<String, UnitHold> out = new TreeMap<>(Names.BYTE_ORDER);
    holds.forEach((unit, h) -> {
      if (units.contains(unit) && liveIds.contains(h.member())) {
        out.put(unit, h);
      }
    });
    return out;
  }

  /**
   * {@code table} (computed without the held units) with each held unit added, in unit byte order, to the eligible
   * member of {@code live} with the least load: not the member that declined it, affinity above 0, below its
   * capacity; load = units per affinity ({@code a} is less loaded than {@code b} if {@code units(a) * affinity(b) <
   * units(b) * affinity(a)}), ties by member id in byte order. A held unit no member can take is unassigned: it is
   * never given to the member that declined it while the hold lasts.
   *
   * @param held the binding holds ({@link #binding}); their units must not be in {@code table}
   */
  static Table place(Table table, Collection<Member> live, Collection<UnitHold> held) {
    if (held.isEmpty()) {
      return table;
    }
    List<Member> members = new ArrayList<>(live);
    members.sort(Comparator.comparing(Member::id, Names.BYTE_ORDER));
    Map<String, List<String>> byMember = new LinkedHashMap<>();
    table.byMember().forEach((m, units) -> byMember.put(m, new ArrayList<>(units)));
    Map<String, Integer> load = new HashMap<>();
    for (Member m : members) {
      load.put(m.id(), byMember.computeIfAbsent(m.id(), k -> new ArrayList<>()).size());
    }
    List<UnitHold> ordered = new ArrayList<>(held);
    ordered.sort(Comparator.comparing(UnitHold::unit, Names.BYTE_ORDER));
    List<String> unassigned = new ArrayList<>(table.unassigned());
    for (UnitHold h : ordered) {
      Member best = null;
      for (Member m : members) { // in id order: the first of equal loads wins
        int units = load.get(m.id());
        if (m.id().equals(h.member()) || m.affinity() <= 0 || units >= m.capacity()) {
          continue;
        }
        if (best == null || (long) units * best.affinity() < (long) load.get(best.id()) * m.affinity()) {
          best = m;
        }
      }
      if (best == null) {
        unassigned.add(h.unit());
      } else {
        byMember.get(best.id()).add(h.unit());
        load.merge(best.id(), 1, Integer::sum);
      }
    }
    return Table.of(byMember, unassigned);
  }
}
