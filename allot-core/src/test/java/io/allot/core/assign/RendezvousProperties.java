package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import io.allot.core.testing.Tries;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The rendezvous strategies (unbounded and bounded) against the definition and their rules, on random members and
 * units whose names are short, any unicode (lone surrogates too) or long; each property runs on edge cases first, then
 * on seeded random cases ({@link Tries}).
 */
class RendezvousProperties {
  static final RendezvousAssigner UNBOUNDED = RendezvousAssigner.unbounded();
  static final RendezvousAssigner BOUNDED = RendezvousAssigner.withDefaults();

  record Case(List<Member> members, List<String> units, long seed) {}

  static final String ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static final String ALPHANUMERIC = ALPHA + "0123456789";

  /** Letters and digits (1 to 12), any unicode but the separator (1 to 6, lone surrogates too), or 300 letters. */
  static String name(Random r) {
    return switch (r.nextInt(3)) {
      case 0 -> chars(r, ALPHANUMERIC, Tries.between(r, 1, 12));
      case 1 -> anyChars(r, Tries.between(r, 1, 6));
      default -> chars(r, ALPHA, 300);
    };
  }

  static String chars(Random r, String from, int length) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < length; i++) {
      b.append(from.charAt(r.nextInt(from.length())));
    }
    return b.toString();
  }

  /** Any chars but ',': often ASCII, surrogates (mostly unpaired) or the ends of the UTF-8 byte lengths. */
  static String anyChars(Random r, int length) {
    char[] edges = {0, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffe, 0xffff};
    StringBuilder b = new StringBuilder();
    while (b.length() < length) {
      char c = switch (r.nextInt(4)) {
        case 0 -> (char) (0x20 + r.nextInt(0x5f));
        case 1 -> (char) (0xd800 + r.nextInt(0x800));
        case 2 -> edges[r.nextInt(edges.length)];
        default -> (char) r.nextInt(0x10000);
      };
      if (c != ',') {
        b.append(c);
      }
    }
    return b.toString();
  }

  static Case randomCase(Random r) {
    int m = Tries.between(r, 0, 25);
    Map<String, Member> members = new LinkedHashMap<>();
    while (members.size() < m) {
      String id = "m-" + name(r);
      members.putIfAbsent(id, Member.of(id, Tries.between(r, 0, 5)));
    }
    int n = Tries.between(r, 0, 300);
    Set<String> units = new LinkedHashSet<>();
    while (units.size() < n) {
      units.add(name(r));
    }
    return new Case(List.copyOf(members.values()), List.copyOf(units), r.nextLong());
  }

  /** No members, no units, one of each, affinity 0 and 5, and the awkward names: NUL, lone surrogates, U+FFFF, long. */
  static List<Case> edgeCases() {
    String long300 = "x".repeat(300);
    List<List<Member>> memberLists = List.of(
        List.of(),
        List.of(Member.of("m-a")),
        List.of(Member.of("m-a", 0)),
        List.of(Member.of("m-a", 5), Member.of("m-\ud800", 1), Member.of("m-" + long300, 0), Member.of("m-\uffff", 3),
            Member.of("m-\u0000", 2)));
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      many.add("u" + i);
    }
    List<List<String>> unitLists = List.of(
        List.of(), List.of("a"), List.of("\u0000", "\ud800", "\udfff", "\udbff\udc00", "\uffff", long300, "0"), many);
    List<Case> out = new ArrayList<>();
    for (List<Member> ms : memberLists) {
      for (List<String> us : unitLists) {
        out.add(new Case(ms, us, 0));
      }
    }
    return out;
  }

  private static void forAllCases(int tries, Consumer<Case> property) {
    Tries.forAll(tries, edgeCases(), RendezvousProperties::randomCase, property);
  }

  /** A case and a whole number (a pick, a weight, a count). */
  record Picked(Case c, int pick) {}

  private static void forAllCases(int tries, int min, int max, Consumer<Picked> property) {
    List<Picked> edges = new ArrayList<>();
    for (Case c : edgeCases()) {
      edges.add(new Picked(c, min));
      edges.add(new Picked(c, max));
    }
    Tries.forAll(tries, edges, r -> new Picked(randomCase(r), Tries.between(r, min, max)), property);
  }

  /** The definition, written out naively: highest -w/ln(U) wins, ties to the later id. */
  static Map<String, String> reference(List<Member> members, List<String> units) {
    List<Member> sorted = new ArrayList<>(members);
    sorted.sort((a, b) -> io.allot.core.model.Names.compareBytes(a.id(), b.id()));
    Map<String, String> out = new HashMap<>();
    for (String u : units) {
      long hu = Hashing.hash64(u);
      double best = -1;
      String owner = null;
      for (Member m : sorted) {
        if (m.affinity() == 0) {
          continue;
        }
        long x = RendezvousPool.pair(hu, Hashing.hash64(m.id()));
        double uu = ((x >>> 25) + 0.5) * 0x1.0p-39;
        double score = -m.affinity() / StrictMath.log(uu);
        if (score >= best) {
          best = score;
          owner = m.id();
        }
      }
      if (owner != null) {
        out.put(u, owner);
      }
    }
    return out;
  }

  @Test
  void unboundedEqualsTheDefinition() {
    forAllCases(200, this::unboundedEqualsTheDefinition);
  }

  private void unboundedEqualsTheDefinition(Case c) {
    Table t = UNBOUNDED.assign(c.members(), c.units());
    assertThat(t.ownerIndex()).isEqualTo(reference(c.members(), c.units()));
  }

  @Test
  void deterministicUnderShuffle() {
    forAllCases(200, this::deterministicUnderShuffle);
  }

  private void deterministicUnderShuffle(Case c) {
    for (RendezvousAssigner a : List.of(UNBOUNDED, BOUNDED)) {
      Table t1 = a.assign(c.members(), c.units());
      List<Member> ms = new ArrayList<>(c.members());
      List<String> us = new ArrayList<>(c.units());
      Collections.shuffle(ms, new Random(c.seed()));
      Collections.shuffle(us, new Random(c.seed() + 1));
      assertThat(a.assign(ms, us)).isEqualTo(t1);
      assertThat(a.assign(ms, us).format()).isEqualTo(t1.format());
    }
  }

  @Test
  void coverageAffinityZeroAndBound() {
    forAllCases(200, this::coverageAffinityZeroAndBound);
  }

  private void coverageAffinityZeroAndBound(Case c) {
    for (RendezvousAssigner a : List.of(UNBOUNDED, BOUNDED)) {
      Table t = a.assign(c.members(), c.units());
      boolean anyEligible = c.members().stream().anyMatch(m -> m.affinity() > 0);
      List<String> all = new ArrayList<>();
      t.byMember().values().forEach(all::addAll);
      all.addAll(t.unassigned());
      assertThat(all).containsExactlyInAnyOrderElementsOf(c.units());
      if (anyEligible) {
        assertThat(t.unassigned()).isEmpty();
      }
      assertThat(t.members()).containsExactlyInAnyOrderElementsOf(c.members().stream().map(Member::id).toList());
      long w = c.members().stream().mapToLong(Member::affinity).sum();
      for (Member m : c.members()) {
        if (m.affinity() == 0) {
          assertThat(t.unitsOf(m.id())).isEmpty();
        } else if (a == BOUNDED) {
          double share = (double) c.units().size() * m.affinity() / w;
          assertThat(t.unitsOf(m.id()).size()).isLessThanOrEqualTo((int) Math.max(1, Math.ceil(1.25 * share - 1e-9)));
        }
      }
    }
  }

  @Test
  void boundedIsAStableMatching() {
    forAllCases(150, this::boundedIsAStableMatching);
  }

  private void boundedIsAStableMatching(Case c) {
    Table t = BOUNDED.assign(c.members(), c.units());
    // no unit u and member m such that u prefers m to its owner and m has room or prefers u to one of its units
    Member[] ms = Inputs.sortedMembers(c.members());
    long w = c.members().stream().mapToLong(Member::affinity).sum();
    Map<String, Integer> idx = new HashMap<>();
    for (int i = 0; i < ms.length; i++) {
      idx.put(ms[i].id(), i);
    }
    for (String u : c.units()) {
      long hu = Hashing.hash64(u);
      String owner = t.ownerOf(u).orElse(null);
      for (Member m : ms) {
        if (m.affinity() == 0 || m.id().equals(owner)) {
          continue;
        }
        int mi = idx.get(m.id());
        boolean prefers = owner == null || beats(ms, hu, mi, idx.get(owner));
        if (!prefers) {
          continue;
        }
        int cap = (int) Math.max(1, Math.ceil(1.25 * c.units().size() * m.affinity() / w - 1e-9));
        List<String> mine = t.unitsOf(m.id());
        assertThat(mine.size()).as("member %s has room but %s prefers it", m.id(), u).isEqualTo(cap);
        long su = RendezvousPool.pair(hu, Hashing.hash64(m.id()));
        for (String v : mine) {
          long sv = RendezvousPool.pair(Hashing.hash64(v), Hashing.hash64(m.id()));
          assertThat(Long.compareUnsigned(sv, su) > 0 || (sv == su && io.allot.core.model.Names.compareBytes(v, u) < 0))
              .as("member %s prefers %s to its %s", m.id(), u, v)
              .isTrue();
        }
      }
    }
  }

  private static boolean beats(Member[] ms, long hu, int a, int b) {
    long pa = RendezvousPool.pair(hu, Hashing.hash64(ms[a].id()));
    long pb = RendezvousPool.pair(hu, Hashing.hash64(ms[b].id()));
    double ka = -ms[a].affinity() / StrictMath.log(((pa >>> 25) + 0.5) * 0x1.0p-39);
    double kb = -ms[b].affinity() / StrictMath.log(((pb >>> 25) + 0.5) * 0x1.0p-39);
    return ka > kb || (ka == kb && a > b);
  }

  @Test
  void leaveMovesOnlyTheLeaversUnits() {
    forAllCases(150, 0, 1000, p -> leaveMovesOnlyTheLeaversUnits(p.c(), p.pick()));
  }

  private void leaveMovesOnlyTheLeaversUnits(Case c, int pick) {
    if (c.members().isEmpty()) {
      return;
    }
    Member gone = c.members().get(pick % c.members().size());
    List<Member> after = new ArrayList<>(c.members());
    after.remove(gone);
    Table t1 = UNBOUNDED.assign(c.members(), c.units());
    Table t2 = UNBOUNDED.assign(after, c.units());
    for (String u : c.units()) {
      if (!t1.ownerOf(u).equals(java.util.Optional.of(gone.id()))) {
        assertThat(t2.ownerOf(u)).isEqualTo(t1.ownerOf(u));
      }
    }
    assertThat(UNBOUNDED.update(t1, after, c.units(), Changes.memberRemoved(gone.id()))).isEqualTo(t2);
    // and back: the member that returns gets exactly its old units
    assertThat(UNBOUNDED.update(t2, c.members(), c.units(), Changes.memberAdded(gone.id()))).isEqualTo(t1);
    assertThat(BOUNDED.update(BOUNDED.assign(c.members(), c.units()), after, c.units(), Changes.memberRemoved(gone.id())))
        .isEqualTo(BOUNDED.assign(after, c.units()));
  }

  @Test
  void joinTakesOnlyWhatTheJoinerWins() {
    forAllCases(150, 1, 5, p -> joinTakesOnlyWhatTheJoinerWins(p.c(), p.pick()));
  }

  private void joinTakesOnlyWhatTheJoinerWins(Case c, int w) {
    Member joiner = Member.of("joiner-" + c.seed(), w);
    if (c.members().stream().anyMatch(m -> m.id().equals(joiner.id()))) {
      return;
    }
    List<Member> after = new ArrayList<>(c.members());
    after.add(joiner);
    Table t1 = UNBOUNDED.assign(c.members(), c.units());
    Table t2 = UNBOUNDED.assign(after, c.units());
    for (String u : c.units()) {
      if (!t2.ownerOf(u).equals(java.util.Optional.of(joiner.id())) && !t1.unassigned().contains(u)) {
        assertThat(t2.ownerOf(u)).isEqualTo(t1.ownerOf(u));
      }
    }
    assertThat(UNBOUNDED.update(t1, after, c.units(), Changes.memberAdded(joiner.id()))).isEqualTo(t2);
  }

  @Test
  void affinityChangeUpdateEqualsFullRun() {
    record Changed(Case c, int w, int pick) {}
    List<Changed> edges = new ArrayList<>();
    for (Case c : edgeCases()) {
      edges.add(new Changed(c, 0, 0));
      edges.add(new Changed(c, 6, 1000));
    }
    Tries.forAll(150, edges, r -> new Changed(randomCase(r), Tries.between(r, 0, 6), Tries.between(r, 0, 1000)),
        x -> affinityChangeUpdateEqualsFullRun(x.c(), x.w(), x.pick()));
  }

  private void affinityChangeUpdateEqualsFullRun(Case c, int w, int pick) {
    if (c.members().isEmpty()) {
      return;
    }
    List<Member> after = new ArrayList<>(c.members());
    int i = pick % after.size();
    Member m = after.get(i);
    after.set(i, m.withAffinity(w));
    for (RendezvousAssigner a : List.of(UNBOUNDED, BOUNDED)) {
      Table t1 = a.assign(c.members(), c.units());
      assertThat(a.update(t1, after, c.units(), Changes.memberChanged(m.id()))).isEqualTo(a.assign(after, c.units()));
    }
  }

  @Test
  void unitChurnMovesNoOtherUnit() {
    forAllCases(150, 0, 20, p -> unitChurnMovesNoOtherUnit(p.c(), p.pick()));
  }

  private void unitChurnMovesNoOtherUnit(Case c, int churn) {
    List<String> before = c.units();
    int k = Math.min(churn, before.size());
    Set<String> removed = new HashSet<>(before.subList(0, k));
    Set<String> added = new HashSet<>();
    for (int i = 0; i < churn; i++) {
      String u = "new-" + c.seed() + "-" + i;
      if (!before.contains(u)) {
        added.add(u);
      }
    }
    List<String> after = new ArrayList<>(before.subList(k, before.size()));
    after.addAll(added);
    Table t1 = UNBOUNDED.assign(c.members(), before);
    Table t2 = UNBOUNDED.assign(c.members(), after);
    for (String u : before.subList(k, before.size())) {
      assertThat(t2.ownerOf(u)).isEqualTo(t1.ownerOf(u));
    }
    assertThat(UNBOUNDED.update(t1, c.members(), after, Changes.units(added, removed))).isEqualTo(t2);
    for (RendezvousAssigner a : List.of(BOUNDED)) {
      assertThat(a.update(a.assign(c.members(), before), c.members(), after, Changes.units(added, removed)))
          .isEqualTo(a.assign(c.members(), after));
    }
  }

  @Test
  void capacityIsNeverExceededAndOverflowIsReported() {
    forAllCases(100, 0, 20, p -> capacityIsNeverExceededAndOverflowIsReported(p.c(), p.pick()));
  }

  private void capacityIsNeverExceededAndOverflowIsReported(Case c, int cap) {
    List<Member> capped = c.members().stream().map(m -> m.withCapacity(cap)).toList();
    for (RendezvousAssigner a : List.of(UNBOUNDED, BOUNDED)) {
      Table t = a.assign(capped, c.units());
      long w = capped.stream().mapToLong(Member::affinity).sum();
      int n = c.units().size();
      long room =
          capped.stream()
              .filter(m -> m.affinity() > 0)
              .mapToLong(m -> a == UNBOUNDED ? cap : Math.min(cap, (long) Math.max(1, Math.ceil(1.25 * n * m.affinity() / w - 1e-9))))
              .sum();
      for (Member m : capped) {
        assertThat(t.unitsOf(m.id()).size()).isLessThanOrEqualTo(cap);
      }
      assertThat(t.assignedCount()).isEqualTo((int) Math.min(room, c.units().size()));
      assertThat(t.unassigned()).hasSize(c.units().size() - t.assignedCount());
    }
  }

  @Test
  void weightsAreRespected() {
    List<Member> ms = List.of(Member.of("a", 1), Member.of("b", 2), Member.of("c", 5));
    List<String> us = new ArrayList<>();
    for (int i = 0; i < 80_000; i++) {
      us.add("unit-" + i);
    }
    Table t = UNBOUNDED.assign(ms, us);
    assertThat(t.unitsOf("a").size()).isBetween(9_000, 11_000);
    assertThat(t.unitsOf("b").size()).isBetween(19_000, 21_000);
    assertThat(t.unitsOf("c").size()).isBetween(48_500, 51_500);
  }

  @Test
  void boundedBalancesSmallShares() {
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      ms.add(Member.of("m" + i));
    }
    List<String> us = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      us.add("u" + i);
    }
    Table t = BOUNDED.assign(ms, us);
    assertThat(t.byMember().values().stream().mapToInt(List::size).max().orElseThrow()).isLessThanOrEqualTo(13);
    assertThat(t.assignedCount()).isEqualTo(500);
  }

  @Test
  void badInputIsRejectedWithItsName() {
    assertThatThrownBy(() -> UNBOUNDED.assign(List.of(Member.of("a")), List.of("x", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> UNBOUNDED.assign(List.of(Member.of("a")), List.of("x", "x")))
        .hasMessageContaining("'x'")
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> UNBOUNDED.assign(List.of(Member.of("a"), Member.of("a", 3)), List.of("x")))
        .hasMessageContaining("'a'");
    assertThatThrownBy(() -> RendezvousAssigner.bounded(-1)).hasMessageContaining("epsilon");
  }

  @Test
  void commasAreFineForTheEngineButNotForTheSeedLayout() {
    Table t = UNBOUNDED.assign(List.of(Member.of("a")), List.of("x,y"));
    assertThat(t.unitsOf("a")).containsExactly("x,y");
    assertThatThrownBy(t::toDistributionHash).hasMessageContaining("'x,y'").hasMessageContaining(",");
  }

  @Test
  void hashIsPinned() {
    // changing the hash would move every unit of every deployed fleet
    assertThat(Hashing.hash64("")).isEqualTo(Hashing.mix64(0xcbf29ce484222325L));
    assertThat(Long.toHexString(Hashing.hash64("unit-1"))).isEqualTo(Long.toHexString(Hashing.hash64("unit-1")));
    Table t = UNBOUNDED.assign(List.of(Member.of("10.0.0.1:8080"), Member.of("10.0.0.2:8080"), Member.of("10.0.0.3:8080")),
        List.of("a", "b", "c", "d", "e", "f"));
    assertThat(t.format()).isEqualTo(PINNED);
  }

  static final String PINNED = "10.0.0.1:8080:a,e,d\n10.0.0.2:8080:b\n10.0.0.3:8080:f,c\n";
}
