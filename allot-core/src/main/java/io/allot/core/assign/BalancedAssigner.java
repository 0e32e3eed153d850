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
 * <p><b>Movement.</b> The units that change owner (or become unassigned) are exactly those of
 * members that left or now have affinity 0, plus {@code Σ max(0, kept − quota)} over the others:
 * the fewest moves that realise the new loads and, thanks to the rounding rule, the fewest of any
 * table within one unit of the weighted shares. One member leaving moves only its units; one
 * joining moves only the units it receives. With equal affinities, adding units (or replacing some
 * with as many new ones) moves no other unit. Removing units without adding any can move a few
 * others, since balance has to be restored; and with unequal affinities even adding units can
 * force a move now and then (when the shares grow, more members can hold a rounded-up load than
 * there are units left to round up: the Alabama paradox of the largest remainder method); it is
 * always the fewest possible.
 *
 * <p><b>Cost.</b> {@link #assign} is O(N) hashing to diff the units against the previous table,
 * plus O(F log F) for F free units. {@link #update} trusts the unit hint in {@link Changes}
 * ({@code units} = previous units − removed + added) and never hashes the full unit set: member
 * changes cost O(M log M + F log F) plus copying the changed members' lists; unit changes add one
 * pass over the previous table that looks each unit up in the (small) set of changed units. Member
 * hints are not needed: members are always diffed in full, in O(M). If the unit hint visibly
 * disagrees with the inputs (sizes differ, a removed unit is not in the previous table, an added
 * one already is), {@code update} falls back to {@link #assign}.
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
    BalancedUnitSet us = BalancedUnitSet.of(units); // validates as Inputs.units does
    Table prev = previous == null ? Table.EMPTY : previous;
    Plan plan = new Plan(ms);
    if (prev.assignedCount() == 0) {
      // nothing ran before: every unit is waiting
      plan.waiting = us.all();
      return plan.finish();
    }
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
    int removedSeen = 0;
    for (Map.Entry<String, List<String>> e : previous.byMember().entrySet()) {
      List<String> list = e.getValue();
      int i = plan.eligible(e.getKey());
      if (!unitChange) {
        if (i < 0) {
          plan.running.addAll(list);
        } else {
          plan.keep(i, list, null, list.size());
        }
        continue;
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
      long n = (long) running.size() + waiting.size();
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
      String[] free1 = byHash(waiting);
      int next = 0; // position in free0 ++ free1
      int freeCount = free0.length + free1.length;
      Table.Builder b = Table.builder().trusted();
      for (int i = 0; i < m; i++) {
        String id = ms[i].id();
        int quota = q.quota(i);
        int keepN = Math.min(heldCount[i], quota);
        int get = Math.min(quota - keepN, freeCount - next);
        if (get == 0 && keepN == heldCount[i]) {
          if (keepN == 0) {
            b.member(id);
          } else if (heldList[i] != null) {
            b.put(id, heldList[i]); // an immutable list of the previous table: shared if possible
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

  /**
   * The units sorted by ({@link Hashing#hash64(String)}, byte order): a total order, so the result
   * does not depend on the order of the input. Sorts packed primitive keys (hash prefix, index),
   * then fixes the rare runs of equal prefixes by full hash and name. O(F log F).
   */
  static String[] byHash(List<String> units) {
    String[] a = units.toArray(new String[0]);
    int n = a.length;
    if (n <= 1) {
      return a;
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
    Arrays.sort(keys);
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
        }
      }
      i = j;
    }
    return out;
  }
}
