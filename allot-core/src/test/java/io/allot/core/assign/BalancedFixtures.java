package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Independent reference computations for the {@code balanced} tests: water-filled shares, the
 * fewest moves any balanced table needs, movement counts, and the table invariants.
 */
final class BalancedFixtures {
  private BalancedFixtures() {}

  /** Names that are legal but awkward: unicode, emoji (surrogate pairs), commas, very long, spaces. */
  static String decorate(String base, int i) {
    switch (Math.floorMod(i, 8)) {
      case 0:
        return base + i;
      case 1:
        return "ü" + base + i;
      case 2:
        return "😀" + base + i + "🚀";
      case 3:
        return base + "," + i + ",";
      case 4:
        return "x".repeat(300) + base + i;
      case 5:
        return "日本" + base + i;
      case 6:
        return " " + base + " " + i + "\t";
      default:
        return "\uFFFF" + base + i; // highest BMP char: sorts before any surrogate in byte order
    }
  }

  /** A member's exact share as a fraction {@code num/den}, or its capacity when clamped. */
  record Share(long num, long den, boolean clamped) {
    long floor() {
      return num / den;
    }

    long ceil() {
      return (num + den - 1) / den;
    }

    boolean integral() {
      return num % den == 0;
    }
  }

  /** The water-filled shares plus the units nobody has room for. */
  record Shares(Map<String, Share> byMember, long overflow) {}

  /**
   * Water-filling, computed differently from the implementation: members sorted by capacity per
   * affinity, clamped one at a time while the smallest ratio is below the water level.
   */
  static Shares shares(Collection<Member> members, long units) {
    List<Member> eligible = new ArrayList<>();
    for (Member m : members) {
      if (m.affinity() > 0) {
        eligible.add(m);
      }
    }
    // ascending cap/w, compared exactly
    eligible.sort((a, b) -> Long.compare((long) a.capacity() * b.affinity(), (long) b.capacity() * a.affinity()));
    Map<String, Share> out = new HashMap<>();
    long r = units;
    long w = 0;
    for (Member m : eligible) {
      w += m.affinity();
    }
    int k = 0;
    // clamp while cap/w_m < r/w, i.e. cap·w < r·w_m
    while (k < eligible.size()) {
      Member m = eligible.get(k);
      if ((long) m.capacity() * w < r * m.affinity()) {
        out.put(m.id(), new Share(m.capacity(), 1, true));
        r -= m.capacity();
        w -= m.affinity();
        k++;
      } else {
        break;
      }
    }
    for (int j = k; j < eligible.size(); j++) {
      Member m = eligible.get(j);
      out.put(m.id(), new Share(r * m.affinity(), w, false));
    }
    return new Shares(out, k == eligible.size() ? r : 0);
  }

  /** Units present in {@code units} whose owner differs between the tables (or that became unassigned). */
  static int moved(Table before, Table after, Collection<String> units) {
    Set<String> present = new HashSet<>(units);
    Map<String, String> now = after.ownerIndex();
    int moved = 0;
    for (Map.Entry<String, List<String>> e : before.byMember().entrySet()) {
      for (String u : e.getValue()) {
        if (present.contains(u) && !e.getKey().equals(now.get(u))) {
          moved++;
        }
      }
    }
    return moved;
  }

  /** Σ over the previous members of max(0, load before − load after): the brief's optimum. */
  static int optimum(Table before, Table after) {
    int s = 0;
    for (Map.Entry<String, List<String>> e : before.byMember().entrySet()) {
      s += Math.max(0, e.getValue().size() - after.unitsOf(e.getKey()).size());
    }
    return s;
  }

  /**
   * The fewest moves of any table that gives every member a load within one unit of its share
   * (exactly its capacity when clamped): units held by members that are gone or have affinity 0,
   * plus what the others hold beyond floor(share), less one for each rounded-up unit that can go
   * to a member already holding more than floor(share).
   */
  static long fewestMoves(Table previous, Collection<Member> members, Collection<String> units) {
    Set<String> present = new HashSet<>(units);
    Map<String, Member> byId = new HashMap<>();
    for (Member m : members) {
      byId.put(m.id(), m);
    }
    Shares sh = shares(members, units.size());
    long moves = 0;
    long roundUps = 0; // units left after every member gets floor(share)
    long assignable = units.size() - sh.overflow();
    long floors = 0;
    for (Share s : sh.byMember().values()) {
      floors += s.floor();
    }
    roundUps = assignable - floors;
    long canSave = 0;
    for (Map.Entry<String, List<String>> e : previous.byMember().entrySet()) {
      long kept = e.getValue().stream().filter(present::contains).count();
      Member m = byId.get(e.getKey());
      if (m == null || m.affinity() == 0) {
        moves += kept;
        continue;
      }
      Share s = sh.byMember().get(m.id());
      moves += Math.max(0, kept - s.floor());
      if (!s.clamped() && !s.integral() && kept > s.floor()) {
        canSave++;
      }
    }
    return moves - Math.min(roundUps, canSave);
  }

  /** Checks everything a balanced table must satisfy. */
  static void checkInvariants(Table t, Collection<Member> members, Collection<String> units) {
    Map<String, Member> byId = new HashMap<>();
    for (Member m : members) {
      byId.put(m.id(), m);
    }
    assertThat(t.members()).containsExactlyInAnyOrderElementsOf(byId.keySet());
    // coverage: each unit exactly once
    List<String> all = new ArrayList<>(t.unassigned());
    t.byMember().values().forEach(all::addAll);
    assertThat(all).as("every unit once").hasSameSizeAs(units);
    assertThat(new HashSet<>(all)).as("every unit once").isEqualTo(new HashSet<>(units));
    Shares sh = shares(members, units.size());
    assertThat((long) t.unassigned().size()).as("unassigned").isEqualTo(sh.overflow());
    List<String> sortedUnassigned = new ArrayList<>(t.unassigned());
    sortedUnassigned.sort(io.allot.core.model.Names.BYTE_ORDER);
    assertThat(t.unassigned()).as("unassigned in byte order").containsExactlyElementsOf(sortedUnassigned);
    for (Member m : byId.values()) {
      int load = t.unitsOf(m.id()).size();
      assertThat(load).as("load of %s", m).isLessThanOrEqualTo(m.capacity());
      if (m.affinity() == 0) {
        assertThat(load).as("load of %s", m).isZero();
        continue;
      }
      Share s = sh.byMember().get(m.id());
      assertThat((long) load).as("load of %s, share %s", m, s).isBetween(s.floor(), s.ceil());
    }
  }

  /** The member list in another order and collection type. */
  static <T> Collection<T> reordered(Collection<T> c, long seed) {
    List<T> l = new ArrayList<>(c);
    java.util.Collections.shuffle(l, new java.util.Random(seed));
    return seed % 2 == 0 ? l : new java.util.LinkedHashSet<>(l);
  }

  static List<String> concat(List<String> a, String... b) {
    List<String> l = new ArrayList<>(a);
    l.addAll(Arrays.asList(b));
    return l;
  }
}
