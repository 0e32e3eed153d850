package io.allot.core.assign;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Perfect weighted balance with minimal movement, computed from the previous table.
 *
 * <p><b>Quotas.</b> Each member gets its weighted share of the units, {@code N·w/W}, rounded down
 * or up, and never more than its capacity (shares above capacity are clamped and the excess is
 * spread over the others by weight, repeatedly); see {@link BalancedQuotas} for the exact rule and
 * who gets the rounded-up units (members already holding that many first, so that no unit moves
 * for the rounding). Members with affinity 0 get nothing.
 *
 * <p><b>Placement.</b>
 *
 * <ol>
 *   <li>Every unit whose previous owner is still a member with affinity &gt; 0 stays there, up to
 *       that member's quota. A member holding more than its quota gives up the units <em>last</em>
 *       in its table order, i.e. the ones it received most recently; long-running units stay put.
 *   <li>The free units are: units of members that left or now have affinity 0, the units given up
 *       in step 1, units that were unassigned before, and new units. They are ordered by (was
 *       assigned before, then {@code hash64(unit)}, then byte order): units that were running come
 *       first, so that when capacity is short it is new or already waiting units that wait.
 *   <li>Members below quota, in byte order of id, each take the next free units in that order, up
 *       to their quota. Their table order is: kept units in their previous order, then the received
 *       units in the order above.
 *   <li>Free units left over (only when the total capacity is less than the number of units) are
 *       {@link Table#unassigned()}, in byte order.
 * </ol>
 *
 * The result depends only on the previous table, the members and the set of units, never on the
 * order of the collections. The previous table may come from any strategy (or be {@link
 * Table#EMPTY}).
 *
 * <p><b>Balance.</b> Every member's load is within one unit of its weighted share (water-filled
 * under capacities): at most {@code ceil(share)}, at least {@code floor(share)}.
 *
 * <p><b>Movement.</b> The units that change owner (or become unassigned) are exactly those of
 * members that left or now have affinity 0, plus {@code Σ max(0, kept − quota)} over the others:
 * the fewest moves that realise the new loads and, thanks to the rounding rule, the fewest of any
 * table within one unit of the weighted shares. Precisely:
 *
 * <ul>
 *   <li>One member leaving moves its units, and with equal affinities nothing else. One joining
 *       moves only the units it receives (with equal affinities; with unequal ones the rounding can
 *       shift a few more, still the fewest possible).
 *   <li>Adding units, or replacing some with as many new ones: with equal affinities (capacities or
 *       not) no other unit moves. With unequal affinities adding units can move a unit now and
 *       then: at most one per member, and only from a member that held a rounded-up load {@code
 *       ceil(share)} when, the shares having grown, more members hold one than there are units
 *       left to round up (the Alabama paradox of the largest remainder method). Keeping every such
 *       holder would leave another member below {@code floor(share)}, outside the balance bound,
 *       so this is the fewest moves of any table within it.
 *   <li>Removing units without adding any moves what balance forces: a member that lost none of its
 *       units may now hold more than its smaller share allows (at N/M = 100 with 1 % of the units
 *       removed, about 0.4 % of the others move). Again the fewest of any table within one unit.
 * </ul>
 *
 * <p><b>Determinism.</b> The table is a function of the table in force and the inputs (see {@link
 * Assigner}): any distributor instance, given the same table in force, computes the same.
 *
 * <p><b>Cost.</b> {@link #assign} with no table in force is O(N): hashing the units and sorting
 * their hashes by buckets (duplicates are found in that order, without a hash set). With a table
 * in force it is O(N) hashing to diff the units against it, plus O(F) for F free units. {@link
 * #update} trusts the unit hint in {@link Changes} ({@code units} = previous units − removed +
 * added) and never hashes the full unit set: member changes cost O(M log M + F) plus copying the
 * changed members' lists; unit changes add one pass over the previous table that looks each unit
 * up in the (small) set of changed units, or, when the previous table's {@link
 * Table#ownerIndex()} is already built (for instance by a server answering owner lookups), only a
 * scan by reference of
 * the members that lost units. Member hints are not needed: members are always diffed in full, in
 * O(M). If the unit hint visibly disagrees with the inputs (sizes differ, a removed unit is not in
 * the previous table, an added one already is), {@code update} falls back to {@link #assign}.
 */
public final class BalancedAssigner implements Assigner {

  public BalancedAssigner() {}

  @Override
  public String name() {
    return "balanced";
  }

  @Override
  public boolean usesPrevious() {
    return true;
  }

  @Override
  public Table assign(Collection<Member> members, Collection<String> units, Table previous) {
    Member[] ms = Inputs.sortedMembers(members);
    Table prev = previous == null ? Table.EMPTY : previous;
    if (prev.assignedCount() == 0) {
      // nothing ran before: every unit is waiting. No set is needed: sorting by hash brings
      // duplicates together, and byHash rejects them.
      Plan plan = new Plan(ms);
      plan.waitingSorted = byHash(checkedUnits(units), true);
      return plan.finish();
    }
    BalancedUnitSet us = BalancedUnitSet.of(units); // validates as Inputs.units does
    Plan plan = new Plan(ms);
    for (Map.Entry<String, List<String>> e : prev.byMember().entrySet()) {
      List<String> list = e.getValue();
      int i = plan.eligible(e.getKey());
      String[] keep = list.toArray(new String[0]); // bulk copy, then compacted in place
      int k = 0;
      for (int j = 0; j < keep.length; j++) {
        String u = keep[j];
        if (us.take(u)) {
          keep[k++] = u;
        }
      }
      if (i >= 0) {
        plan.keep(i, list, keep, k);
      } else {
        plan.running.addAll(Arrays.asList(keep).subList(0, k));
      }
    }
    // the units not taken were not running: previously unassigned, or new
    plan.waiting = us.untaken();
    return plan.finish();
  }

  @Override
  public Table update(Table previous, Collection<Member> members, Collection<String> units, Changes changes) {
    if (previous == null || changes == null || units == null || members == null) {
      return assign(members, units, previous);
    }
    Member[] ms = Inputs.sortedMembers(members);
    Set<String> added = changes.unitsAdded();
    Set<String> removed = changes.unitsRemoved();
    if (units.size() != (long) previous.unitCount() + added.size() - removed.size()) {
      return assign(members, units, previous);
    }
    Plan plan = new Plan(ms);
    // one lookup per previous unit in a small map with well-spread hashes (String hash codes are
    // cached; immutable Set.of sets probe linearly and cluster badly on similar names)
    HashMap<String, Boolean> changed = new HashMap<>(Math.max(16, (int) ((added.size() + removed.size()) / 0.5f) + 1), 0.5f);
    for (String u : added) {
      Names.checkUnit(u);
      changed.put(u, Boolean.TRUE);
    }
    for (String u : removed) {
      if (changed.put(u, Boolean.FALSE) != null) {
        return assign(members, units, previous); // added and removed at once: the hint is wrong
      }
    }
    boolean unitChange = !changed.isEmpty();
    // With the previous table's owner index at hand (built by whoever looked owners up), only the
    // members that lost units are scanned, by reference, without touching the unit strings.
    Map<String, String> owners = unitChange ? previous.ownerIndexIfBuilt() : null;
    HashMap<String, List<String>> removedBy = null;
    if (owners != null) {
      for (String u : added) {
        if (owners.containsKey(u)) {
          return assign(members, units, previous); // "added" but already there: the hint is wrong
        }
      }
      removedBy = new HashMap<>();
      for (String u : removed) {
        String owner = owners.get(u);
        if (owner != null) {
          removedBy.computeIfAbsent(owner, x -> new ArrayList<>()).add(u);
        }
      }
    }
    int removedSeen = 0;
    for (Map.Entry<String, List<String>> e : previous.byMember().entrySet()) {
      List<String> list = e.getValue();
      int i = plan.eligible(e.getKey());
      List<String> gone = removedBy == null ? null : removedBy.get(e.getKey());
      if (!unitChange || (removedBy != null && gone == null)) {
        if (i < 0) {
          plan.running.addAll(list);
        } else {
          plan.keep(i, list, null, list.size());
        }
        continue;
      }
      if (gone != null) {
        String[] keep = list.toArray(new String[0]);
        int k = dropSame(keep, gone);
        if (k >= 0) {
          removedSeen += gone.size();
          if (i >= 0) {
            plan.keep(i, list, keep, k);
          } else {
            plan.running.addAll(Arrays.asList(keep).subList(0, k));
          }
          continue;
        }
        // not the same String instances: compare by value below
      }
      String[] keep = list.toArray(new String[0]); // bulk copy, then compacted in place
      int k = 0;
      for (int j = 0; j < keep.length; j++) {
        String u = keep[j];
        Boolean c = changed.get(u);
        if (c == null) {
          keep[k++] = u;
        } else if (c) {
          return assign(members, units, previous); // "added" but already there: the hint is wrong
        } else {
          removedSeen++;
        }
      }
      if (i >= 0) {
        plan.keep(i, list, keep, k);
      } else {
        plan.running.addAll(Arrays.asList(keep).subList(0, k));
      }
    }
    List<String> waiting = new ArrayList<>(previous.unassigned().size() + added.size());
    for (String u : previous.unassigned()) {
      Boolean c = changed.get(u);
      if (c == null) {
        waiting.add(u);
      } else if (c) {
        return assign(members, units, previous);
      } else {
        removedSeen++;
      }
    }
    if (removedSeen != removed.size()) {
      return assign(members, units, previous); // the hint is wrong
    }
    waiting.addAll(added);
    plan.waiting = waiting;
    return plan.finish();
  }

  /**
   * Removes from {@code units} (compacting it in place) the units of {@code gone}, found by
   * reference: no string is read. Returns the count left, or -1 if {@code gone} is long or not every
   * unit of it was found by reference (the caller then compares by value).
   */
  private static int dropSame(String[] units, List<String> gone) {
    int g = gone.size();
    if (g > 32) {
      return -1;
    }
    String[] r = gone.toArray(new String[0]);
    int k = 0;
    int found = 0;
    for (String u : units) {
      boolean drop = false;
      for (int t = 0; t < g; t++) {
        if (u == r[t]) {
          drop = true;
          break;
        }
      }
      if (drop) {
        found++;
      } else {
        units[k++] = u;
      }
    }
    return found == g ? k : -1;
  }

  /** The state of one run: what each member keeps, and which units are free. */
  private static final class Plan {
    final Member[] ms;
    final HashMap<String, Integer> index;
    /**
     * Per member: the previous table's own list when the member still holds all of it (immutable,
     * so it can be shared or bulk-copied); else null.
     */
    final List<String>[] heldList;
    /** Per member: the previous units it still holds, in previous order, when some were removed. */
    final String[][] heldArray;
    final int[] heldCount;
    /** Free units that were running before (on members that left, or now have affinity 0). */
    final ArrayList<String> running = new ArrayList<>();
    /** Free units that were not running before: previously unassigned, or new. */
    List<String> waiting = List.of();
    /** {@link #waiting} already in hash order, when the caller sorted it; else null. */
    String[] waitingSorted;

    @SuppressWarnings({"unchecked", "rawtypes"})
    Plan(Member[] ms) {
      this.ms = ms;
      this.index = new HashMap<>(Math.max(16, (int) (ms.length / 0.75f) + 1));
      for (int i = 0; i < ms.length; i++) {
        index.put(ms[i].id(), i);
      }
      this.heldList = new List[ms.length];
      this.heldArray = new String[ms.length][];
      this.heldCount = new int[ms.length];
    }

    /** Index of member {@code id} if it is a member with affinity > 0, else -1. */
    int eligible(String id) {
      Integer i = index.get(id);
      return i == null || ms[i].affinity() == 0 ? -1 : i;
    }

    /**
     * Records what member {@code i} still holds: the first {@code k} entries of {@code keep} (or all
     * of {@code previous} if {@code keep} is null). When {@code k} equals the size of {@code
     * previous}, they are the same units.
     */
    void keep(int i, List<String> previous, String[] keep, int k) {
      if (k == previous.size()) {
        heldList[i] = previous;
      }
      heldArray[i] = keep; // may be null when it is the whole previous list
      heldCount[i] = k;
    }

    /** The units member {@code i} holds, as an array (possibly longer than the count). */
    private String[] held(int i) {
      if (heldArray[i] == null) {
        heldArray[i] = heldList[i].toArray(new String[0]);
      }
      return heldArray[i];
    }

    Table finish() {
      int m = ms.length;
      long n = (long) running.size() + (waitingSorted != null ? waitingSorted.length : waiting.size());
      for (int i = 0; i < m; i++) {
        n += heldCount[i];
      }
      BalancedQuotas q = BalancedQuotas.compute(ms, heldCount, n);
      // members over quota give up the units last in their table order (most recently received)
      for (int i = 0; i < m; i++) {
        if (heldCount[i] > q.quota(i)) {
          String[] h = held(i);
          for (int j = q.quota(i); j < heldCount[i]; j++) {
            running.add(h[j]);
          }
        }
      }
      String[] free0 = byHash(running);
      String[] free1 = waitingSorted != null ? waitingSorted : byHash(waiting);
      int next = 0; // position in free0 ++ free1
      int freeCount = free0.length + free1.length;
      Table.Sorted b = new Table.Sorted(m); // members in byte order: no re-sorting
      for (int i = 0; i < m; i++) {
        String id = ms[i].id();
        int quota = q.quota(i);
        int keepN = Math.min(heldCount[i], quota);
        int get = Math.min(quota - keepN, freeCount - next);
        if (get == 0 && keepN == heldCount[i]) {
          if (keepN == 0) {
            b.put(id, List.of());
          } else if (heldList[i] != null) {
            b.put(id, heldList[i]); // an immutable list of the previous table: shared
          } else {
            String[] h = heldArray[i];
            b.putOwned(id, h.length == keepN ? h : Arrays.copyOf(h, keepN));
          }
          continue;
        }
        String[] out = new String[keepN + get];
        if (keepN > 0 && heldList[i] != null && keepN == heldCount[i]) {
          heldList[i].toArray(out); // bulk copy; writes a null at out[keepN], overwritten below
        } else if (keepN > 0) {
          System.arraycopy(held(i), 0, out, 0, keepN);
        }
        for (int j = keepN; j < out.length; j++, next++) {
          out[j] = next < free0.length ? free0[next] : free1[next - free0.length];
        }
        b.putOwned(id, out);
      }
      if (next < freeCount) {
        String[] rest = new String[freeCount - next];
        for (int j = 0; j < rest.length; j++, next++) {
          rest[j] = next < free0.length ? free0[next] : free1[next - free0.length];
        }
        Arrays.sort(rest, Names.BYTE_ORDER);
        b.unassigned(Arrays.asList(rest));
      }
      return b.build();
    }
  }

  /** The units as an array, each checked as {@link Inputs#units} does (duplicates are found later). */
  private static String[] checkedUnits(Collection<String> units) {
    if (units == null) {
      throw new IllegalArgumentException("units is null");
    }
    String[] a = units.toArray(new String[0]);
    for (String u : a) {
      Names.checkUnit(u);
    }
    return a;
  }

  /** {@link #byHash(String[], boolean)} of a list, which must hold distinct units. */
  static String[] byHash(List<String> units) {
    return byHash(units.toArray(new String[0]), false);
  }

  /**
   * The units sorted by ({@link Hashing#hash64(String)} as a signed number, then byte order): a
   * total order, so the result does not depend on the order of the input. Sorts packed primitive
   * keys (hash prefix, index) by bucketing on their top bits (linear time: the hashes are uniform),
   * then fixes the rare runs of equal prefixes by full hash and name. O(F) expected.
   *
   * @param a the units; reordered in place is not needed: a new array is returned
   * @param rejectDuplicates if true, a unit listed twice is rejected with the message of {@link
   *     Inputs#units}; if false the units must be distinct
   */
  static String[] byHash(String[] a, boolean rejectDuplicates) {
    int n = a.length;
    if (n <= 1) {
      return a.clone();
    }
    long[] h = new long[n];
    for (int i = 0; i < n; i++) {
      h[i] = Hashing.hash64(a[i]);
    }
    int bits = 64 - Long.numberOfLeadingZeros(n - 1);
    long low = (1L << bits) - 1;
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = (h[i] & ~low) | i;
    }
    sortSigned(keys);
    String[] out = new String[n];
    int i = 0;
    while (i < n) {
      long prefix = keys[i] & ~low;
      int j = i + 1;
      while (j < n && (keys[j] & ~low) == prefix) {
        j++;
      }
      if (j - i == 1) {
        out[i] = a[(int) (keys[i] & low)];
      } else {
        Integer[] run = new Integer[j - i];
        for (int k = i; k < j; k++) {
          run[k - i] = (int) (keys[k] & low);
        }
        Arrays.sort(
            run,
            (x, y) -> {
              int c = Long.compare(h[x], h[y]);
              return c != 0 ? c : Names.compareBytes(a[x], a[y]);
            });
        for (int k = i; k < j; k++) {
          out[k] = a[run[k - i]];
          if (rejectDuplicates && k > i && out[k].equals(out[k - 1])) {
            Inputs.units(Arrays.asList(a)); // throws, naming the first unit listed twice
            throw new IllegalArgumentException("unit " + Names.quote(out[k]) + " is listed twice");
          }
        }
      }
      i = j;
    }
    return out;
  }

  /**
   * Sorts {@code keys} in signed order, as {@link Arrays#sort(long[])} would, in linear time for
   * uniformly spread keys: two stable radix passes of 11 bits sort by the top 22 bits (each pass
   * reads sequentially and writes 2,048 streams, which stay in cache), then an insertion pass
   * orders the few keys that share their top 22 bits.
   */
  static void sortSigned(long[] keys) {
    int n = keys.length;
    if (n < 4096) {
      Arrays.sort(keys);
      return;
    }
    int[] low = new int[2049];
    int[] high = new int[2049];
    for (long k : keys) {
      long u = k ^ Long.MIN_VALUE; // signed order as unsigned order
      low[(int) ((u >>> 42) & 2047) + 1]++;
      high[(int) (u >>> 53) + 1]++;
    }
    for (int d = 1; d < 2049; d++) {
      low[d] += low[d - 1];
      high[d] += high[d - 1];
    }
    long[] tmp = new long[n];
    for (long k : keys) {
      tmp[low[(int) (((k ^ Long.MIN_VALUE) >>> 42) & 2047)]++] = k;
    }
    for (long k : tmp) {
      keys[high[(int) ((k ^ Long.MIN_VALUE) >>> 53)]++] = k;
    }
    for (int i = 1; i < n; i++) {
      long x = keys[i];
      int j = i - 1;
      if (keys[j] > x) {
        while (j >= 0 && keys[j] > x) {
          keys[j + 1] = keys[j];
          j--;
        }
        keys[j + 1] = x;
      }
    }
  }
}
