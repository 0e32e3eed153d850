package io.allot.core.assign;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
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
import java.util.function.Function;

/**
 * Honours holds, whatever the strategy: a member that released a unit with a hold (the store's {@code
 * Ownership.release} with a hold) declines it while the hold lasts, so the distributor computes the table without the
 * held units ({@link #binding}) and then gives each held unit to the least-loaded eligible live member ({@link
 * #place}). Pure and deterministic: the result depends on the inputs only, never on the order of the collections.
 * The distributor and the simulator's distributor both place holds with it.
 *
 * <p>A hold is any value that names the member that declined its unit ({@code declinedBy}); holds are given by unit.
 */
public final class HoldPlacement {
  private HoldPlacement() {}

  /**
   * The holds that bind: on a unit of {@code units}, declined by a member of {@code live}, by unit in byte order. A
   * hold of a member that is not live changes nothing (no unit goes to such a member anyway), so it is left out and
   * the table stays the strategy's own.
   *
   * @param holds      the holds by unit
   * @param declinedBy the member that declined a hold's unit
   */
  public static <H> Map<String, H> binding(Map<String, H> holds, Function<? super H, String> declinedBy,
      Set<String> units, Collection<Member> live) {
    Set<String> liveIds = new HashSet<>();
    live.forEach(m -> liveIds.add(m.id()));
    Map<String, H> out = new TreeMap<>(Names.BYTE_ORDER);
    holds.forEach((unit, h) -> {
      if (units.contains(unit) && liveIds.contains(declinedBy.apply(h))) {
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
   * @param held       the binding holds by unit ({@link #binding}); their units must not be in {@code table}
   * @param declinedBy the member that declined a hold's unit
   * @return {@code table} itself if there is no hold
   */
  public static <H> Table place(Table table, Collection<Member> live, Map<String, H> held,
      Function<? super H, String> declinedBy) {
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
    List<String> ordered = new ArrayList<>(held.keySet());
    ordered.sort(Names.BYTE_ORDER);
    List<String> unassigned = new ArrayList<>(table.unassigned());
    for (String unit : ordered) {
      String decliner = declinedBy.apply(held.get(unit));
      Member best = null;
      for (Member m : members) { // in id order: the first of equal loads wins
        int units = load.get(m.id());
        if (m.id().equals(decliner) || m.affinity() <= 0 || units >= m.capacity()) {
          continue;
        }
        if (best == null || (long) units * best.affinity() < (long) load.get(best.id()) * m.affinity()) {
          best = m;
        }
      }
      if (best == null) {
        unassigned.add(unit);
      } else {
        byMember.get(best.id()).add(unit);
        load.merge(best.id(), 1, Integer::sum);
      }
    }
    return Table.of(byMember, unassigned);
  }
}
