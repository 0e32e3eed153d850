package io.allot.bench;

import io.allot.core.assign.Changes;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The fixed inputs of one benchmark cell (N units, M members) and of its three changes. Fully
 * deterministic: the same (N, M) always gives the same scenario.
 *
 * <ul>
 *   <li>Units {@code unit-000000} … {@code unit-<N-1>} (six digits at least).
 *   <li>Members {@code 10.0.0.1:8080} …: 250 hosts per /24, affinity 1, no capacity cap, held in
 *       byte order.
 *   <li><b>Leave</b>: the member in the middle of the byte-ordered list ({@code index M/2}) goes.
 *   <li><b>Join</b>: member {@value #JOINER} arrives.
 *   <li><b>Churn</b>: the first 1 % (at least one) of the units in a pseudo-random order fixed by
 *       {@link #CHURN_SEED} go, and as many new units {@code unit-<N>}, {@code unit-<N+1>}, … come.
 *       The same sets alone make the other two unit changes: <b>add</b> (only the new units come,
 *       {@link #unitsAfterAdd()}) and <b>remove</b> (only the old ones go, {@link #unitsAfterRemove()}).
 * </ul>
 *
 * Made by {@link #of(int, int)}; the components are what it computes.
 *
 * @param members the members, in byte order
 * @param leaver id of the member that leaves
 * @param churnRemoved the units the churn removes
 * @param churnAdded the units the churn adds
 * @param unitsAfterChurn the units after the churn: the survivors in their order, then the new ones
 */
public record Scenario(
    int n,
    int m,
    List<String> units,
    List<Member> members,
    String leaver,
    List<Member> membersAfterLeave,
    List<Member> membersAfterJoin,
    Set<String> churnRemoved,
    Set<String> churnAdded,
    List<String> unitsAfterChurn) {
  /** Id of the member that joins. */
  public static final String JOINER = "m-new";
  /** Seed of the order in which units are replaced. */
  public static final long CHURN_SEED = 0x5eed_a110_7L;

  /** The scenario for N units and M members. */
  public static Scenario of(int n, int m) {
    return of(units(n), m);
  }

  /** The scenario for M members and the given units (which must be {@link #units(int)}). */
  static Scenario of(List<String> units, int m) {
    int n = units.size();
    if (n < 1) {
      throw new IllegalArgumentException("the number of units must be >= 1, got " + n);
    }
    if (m < 2) {
      throw new IllegalArgumentException("the number of members must be >= 2 (one of them leaves), got " + m);
    }
    List<Member> ms = new ArrayList<>(m);
    for (int i = 0; i < m; i++) {
      ms.add(Member.of(memberId(i)));
    }
    ms.sort((a, b) -> Names.compareBytes(a.id(), b.id()));
    String leaver = ms.get(m / 2).id();
    List<Member> afterLeave = new ArrayList<>(ms);
    afterLeave.remove(m / 2);
    List<Member> afterJoin = new ArrayList<>(ms);
    afterJoin.add(Member.of(JOINER));
    afterJoin.sort((a, b) -> Names.compareBytes(a.id(), b.id()));

    int c = churnCount(n);
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    SplittableRandom rnd = new SplittableRandom(CHURN_SEED);
    for (int i = 0; i < c; i++) { // partial Fisher-Yates: the first c of a random permutation
      int j = i + rnd.nextInt(n - i);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    boolean[] gone = new boolean[n];
    LinkedHashSet<String> removed = new LinkedHashSet<>();
    for (int i = 0; i < c; i++) {
      gone[order[i]] = true;
      removed.add(units.get(order[i]));
    }
    LinkedHashSet<String> added = new LinkedHashSet<>();
    for (int i = 0; i < c; i++) {
      added.add(unitName(n + i));
    }
    List<String> after = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      if (!gone[i]) {
        after.add(units.get(i));
      }
    }
    after.addAll(added);
    return new Scenario(n, m, units, Collections.unmodifiableList(ms), leaver, Collections.unmodifiableList(afterLeave),
        Collections.unmodifiableList(afterJoin), Collections.unmodifiableSet(removed), Collections.unmodifiableSet(added),
        Collections.unmodifiableList(after));
  }

  /** Units {@code unit-000000} … {@code unit-<n-1>}, unmodifiable. */
  public static List<String> units(int n) {
    String[] a = new String[n];
    for (int i = 0; i < n; i++) {
      a[i] = unitName(i);
    }
    return List.of(a);
  }

  /** {@code unit-} and {@code i} padded to six digits. */
  public static String unitName(int i) {
    String d = Integer.toString(i);
    StringBuilder b = new StringBuilder(5 + Math.max(6, d.length())).append("unit-");
    for (int k = d.length(); k < 6; k++) {
      b.append('0');
    }
    return b.append(d).toString();
  }

  /** The id of the {@code i}-th member: {@code 10.a.b.c:8080}, hosts .1 to .250 of each /24. */
  public static String memberId(int i) {
    int subnet = i / 250;
    return "10." + (subnet / 256) + "." + (subnet % 256) + "." + (i % 250 + 1) + ":8080";
  }

  /** Number of units replaced by the churn: 1 %, at least one. */
  public static int churnCount(int n) {
    return Math.max(1, n / 100);
  }

  public Changes leaveChanges() {
    return Changes.memberRemoved(leaver);
  }

  public Changes joinChanges() {
    return Changes.memberAdded(JOINER);
  }

  public Changes churnChanges() {
    return Changes.units(churnAdded, churnRemoved);
  }

  /** The units after adding (only) the churn's new units: all units in their order, then the new ones. */
  public List<String> unitsAfterAdd() {
    List<String> out = new ArrayList<>(n + churnAdded.size());
    out.addAll(units);
    out.addAll(churnAdded);
    return Collections.unmodifiableList(out);
  }

  /** The units after removing (only) the churn's removed units, in their order. */
  public List<String> unitsAfterRemove() {
    List<String> out = new ArrayList<>(n);
    for (String u : units) {
      if (!churnRemoved.contains(u)) {
        out.add(u);
      }
    }
    return Collections.unmodifiableList(out);
  }

  public Changes addChanges() {
    return Changes.units(churnAdded, Set.of());
  }

  public Changes removeChanges() {
    return Changes.units(Set.of(), churnRemoved);
  }

  /** Units present both before and after the churn. */
  public int churnSurvivors() {
    return n - churnRemoved.size();
  }

  @Override
  public String toString() {
    return "Scenario[N=" + n + ", M=" + m + "]";
  }
}
