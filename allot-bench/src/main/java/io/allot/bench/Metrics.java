package io.allot.bench;

import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The quality measures of the benchmark, on finished tables. */
public final class Metrics {
  private Metrics() {}

  /**
   * Worst load relative to the fair share: max over members with affinity {@code w > 0} of {@code
   * load / ideal}, {@code ideal = N · w / W} (N: units in the table, W: total affinity). 1.0 is a
   * perfect split; NaN if there are no units or no eligible members.
   */
  public static double maxOverIdeal(Table table, Collection<Member> members) {
    long total = 0;
    for (Member m : members) {
      total += m.affinity();
    }
    int n = table.unitCount();
    if (total == 0 || n == 0) {
      return Double.NaN;
    }
    double worst = 0;
    for (Member m : members) {
      if (m.affinity() > 0) {
        double ideal = (double) n * m.affinity() / total;
        worst = Math.max(worst, table.unitsOf(m.id()).size() / ideal);
      }
    }
    return worst;
  }

  /**
   * How far the worst member is above the balance bound: max over members with affinity {@code w >
   * 0} of {@code load − ceil(N · w / W)} (exact integer arithmetic; N: units in the table, W: total
   * affinity; members have no capacity limit in the benchmark). 0 or less: every member is within
   * the bound. {@link Long#MIN_VALUE} if there is no eligible member.
   */
  public static long maxOverCeil(Table table, Collection<Member> members) {
    long total = 0;
    for (Member m : members) {
      total += m.affinity();
    }
    long n = table.unitCount();
    long worst = Long.MIN_VALUE;
    if (total == 0) {
      return worst;
    }
    for (Member m : members) {
      if (m.affinity() > 0) {
        long p = n * m.affinity();
        long ceil = p / total + (p % total == 0 ? 0 : 1);
        worst = Math.max(worst, table.unitsOf(m.id()).size() - ceil);
      }
    }
    return worst;
  }

  /**
   * Units that had an owner in {@code before}, are still present in {@code after}, and whose owner
   * changed (including losing their owner). Units new in {@code after}, units gone from it, and
   * units unassigned in {@code before} do not count.
   */
  public static long moved(Table before, Table after) {
    Map<String, String> a = after.ownerIndex();
    Set<String> unassignedAfter = after.unassigned().isEmpty() ? Set.of() : new HashSet<>(after.unassigned());
    long moved = 0;
    for (Map.Entry<String, List<String>> e : before.byMember().entrySet()) {
      String owner = e.getKey();
      for (String u : e.getValue()) {
        String now = a.get(u);
        if (now != null ? !now.equals(owner) : unassignedAfter.contains(u)) {
          moved++;
        }
      }
    }
    return moved;
  }

  /**
   * The fewest moves that realise the new loads: the sum over members of {@code max(0, load_before
   * - load_after)}, a member absent from {@code after} having load 0 there.
   */
  public static long optimum(Table before, Table after) {
    long sum = 0;
    for (Map.Entry<String, List<String>> e : before.byMember().entrySet()) {
      sum += Math.max(0, e.getValue().size() - after.unitsOf(e.getKey()).size());
    }
    return sum;
  }

  /**
   * {@code moved / optimum}. When the optimum is 0 (nothing needed to move): NaN if nothing moved,
   * +infinity if something did.
   */
  public static double ratio(long moved, long optimum) {
    if (optimum == 0) {
      return moved == 0 ? Double.NaN : Double.POSITIVE_INFINITY;
    }
    return (double) moved / optimum;
  }

  /**
   * Checks that a table is a valid answer for the inputs: every unit exactly once (assigned or
   * unassigned), only given members with affinity above 0 own units, every member is listed.
   *
   * @throws IllegalStateException describing the first problem found
   */
  public static void validate(Table table, Collection<Member> members, Collection<String> units) {
    Map<String, Member> byId = new HashMap<>();
    for (Member m : members) {
      byId.put(m.id(), m);
    }
    if (table.unitCount() != units.size()) {
      throw new IllegalStateException(
          "invalid table: it holds " + table.unitCount() + " units, expected " + units.size());
    }
    Map<String, String> owners = table.ownerIndex();
    if (owners.size() != table.assignedCount()) {
      throw new IllegalStateException("invalid table: a unit is assigned to two members");
    }
    Set<String> unassigned = table.unassigned().isEmpty() ? Set.of() : new HashSet<>(table.unassigned());
    for (String u : units) {
      boolean assigned = owners.containsKey(u);
      if (!assigned && !unassigned.contains(u)) {
        throw new IllegalStateException("invalid table: unit " + Names.quote(u) + " is missing");
      }
      if (assigned && unassigned.contains(u)) {
        throw new IllegalStateException("invalid table: unit " + Names.quote(u) + " is both assigned and unassigned");
      }
    }
    for (Map.Entry<String, List<String>> e : table.byMember().entrySet()) {
      Member m = byId.get(e.getKey());
      if (m == null) {
        throw new IllegalStateException("invalid table: unknown member " + Names.quote(e.getKey()));
      }
      int load = e.getValue().size();
      if (load > m.capacity() || (m.affinity() == 0 && load > 0)) {
        throw new IllegalStateException("invalid table: member " + Names.quote(m.id()) + " has " + load + " units");
      }
    }
    for (Member m : members) {
      if (!table.byMember().containsKey(m.id())) {
        throw new IllegalStateException("invalid table: member " + Names.quote(m.id()) + " is not listed");
      }
    }
  }
}
