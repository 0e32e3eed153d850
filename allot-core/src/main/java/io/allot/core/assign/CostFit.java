package io.allot.core.assign;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Makes a table respect capacities counted in <em>cost</em> units (long-running tasks cost 1 or more each), as a
 * pure, deterministic pass after a strategy placed the units by count:
 *
 * <ol>
 *   <li>each member keeps its units in table order while their summed cost fits its capacity; the rest are evicted
 *       (a member that is not live or has affinity 0 keeps nothing);</li>
 *   <li>the evicted units and the table's unassigned ones, in order of cost (largest first) then name, go one by one
 *       to the live member with affinity above 0 whose load after taking it, divided by its affinity, is lowest among
 *       those with room for it (ties: member id in byte order);</li>
 *   <li>a unit no member has room for is {@linkplain Table#unassigned() unassigned}: reported, never dropped.</li>
 * </ol>
 *
 * With every cost 1 and a table within the members' capacities the table comes back unchanged (the same object).
 * Properties in {@code CostFitProperties}: every unit once, no member over capacity, an unassigned unit fits no member,
 * units that fit stay where they were, and the same inputs in any order give the same table.
 */
public final class CostFit {
  private CostFit() {}

  /**
   * The table with capacities enforced in cost units.
   *
   * @param table  a strategy's table over {@code live}
   * @param live   the live members with their capacity (in cost units) and affinity
   * @param costs  unit to cost (at least 1); a unit not in the map costs 1
   */
  public static Table fit(Table table, Collection<Member> live, Map<String, Integer> costs) {
    Map<String, Member> byId = new HashMap<>();
    for (Member m : live) {
      byId.put(m.id(), m);
    }
    TreeMap<String, List<String>> out = new TreeMap<>(Names.BYTE_ORDER);
    Map<String, Long> load = new HashMap<>();
    List<String> homeless = new ArrayList<>(table.unassigned());
    boolean evicted = false;
    for (Map.Entry<String, List<String>> e : table.byMember().entrySet()) {
      Member m = byId.get(e.getKey());
      List<String> kept = new ArrayList<>();
      long used = 0;
      for (String u : e.getValue()) {
        int c = cost(costs, u);
        if (m != null && m.affinity() > 0 && used + c <= m.capacity()) {
          kept.add(u);
          used += c;
        } else {
          homeless.add(u);
          evicted = true;
        }
      }
      out.put(e.getKey(), kept);
      load.put(e.getKey(), used);
    }
    if (!evicted && homeless.isEmpty()) {
      return table;
    }
    homeless.sort(Comparator.<String>comparingInt(u -> -cost(costs, u)).thenComparing(Names.BYTE_ORDER));
    List<Member> candidates = new ArrayList<>();
    for (Member m : live) {
      if (m.affinity() > 0) {
        candidates.add(m);
      }
    }
    candidates.sort(Comparator.comparing(Member::id, Names.BYTE_ORDER));
    List<String> unassigned = new ArrayList<>();
    for (String u : homeless) {
      int c = cost(costs, u);
      Member best = null;
      double bestScore = Double.MAX_VALUE;
      for (Member m : candidates) {
        long used = load.getOrDefault(m.id(), 0L);
        if (used + c > m.capacity()) {
          continue;
        }
        double score = (double) (used + c) / m.affinity();
        if (score < bestScore) { // strictly lower: the first in id order wins a tie
          best = m;
          bestScore = score;
        }
      }
      if (best == null) {
        unassigned.add(u);
      } else {
        out.computeIfAbsent(best.id(), k -> new ArrayList<>()).add(u);
        load.merge(best.id(), (long) c, Long::sum);
      }
    }
    if (!evicted && unassigned.size() == homeless.size()) {
      return table; // nothing moved: the strategy's overflow fits nowhere either
    }
    unassigned.sort(Names.BYTE_ORDER);
    return Table.of(out, unassigned);
  }

  private static int cost(Map<String, Integer> costs, String unit) {
    Integer c = costs.get(unit);
    return c == null ? 1 : c;
  }
}
