package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RendezvousProperties {
  static final RendezvousAssigner UNBOUNDED = RendezvousAssigner.unbounded();
  static final RendezvousAssigner BOUNDED = RendezvousAssigner.withDefaults();

  record Case(List<Member> members, List<String> units, long seed) {}

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<String> names =
        Arbitraries.oneOf(
            Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(12),
            Arbitraries.strings().excludeChars(',').ofMinLength(1).ofMaxLength(6), // any unicode (incl. surrogates) but the separator
            Arbitraries.strings().alpha().ofLength(300));
    Arbitrary<List<String>> units = names.list().ofMaxSize(300).uniqueElements();
    Arbitrary<List<Member>> members =
        Combinators.combine(names, Arbitraries.integers().between(0, 5))
            .as((id, w) -> Member.of("m-" + id, w))
            .list()
            .ofMaxSize(25)
            .uniqueElements(Member::id);
    return Combinators.combine(members, units, Arbitraries.longs()).as(Case::new);
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
        long x = RendezvousAssigner.pair(hu, Hashing.hash64(m.id()));
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

  @Property(tries = 200)
  void unboundedEqualsTheDefinition(@ForAll("cases") Case c) {
    Table t = UNBOUNDED.assign(c.members(), c.units());
    assertThat(t.ownerIndex()).isEqualTo(reference(c.members(), c.units()));
  }

  @Property(tries = 200)
  void deterministicUnderShuffle(@ForAll("cases") Case c) {
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

  @Property(tries = 200)
  void coverageAffinityZeroAndBound(@ForAll("cases") Case c) {
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

  @Property(tries = 150)
  void boundedIsAStableMatching(@ForAll("cases") Case c) {
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
        long su = RendezvousAssigner.pair(hu, Hashing.hash64(m.id()));
        for (String v : mine) {
          long sv = RendezvousAssigner.pair(Hashing.hash64(v), Hashing.hash64(m.id()));
          assertThat(Long.compareUnsigned(sv, su) > 0 || (sv == su && io.allot.core.model.Names.compareBytes(v, u) < 0))
              .as("member %s prefers %s to its %s", m.id(), u, v)
              .isTrue();
        }
      }
    }
  }

  private static boolean beats(Member[] ms, long hu, int a, int b) {
    long pa = RendezvousAssigner.pair(hu, Hashing.hash64(ms[a].id()));
    long pb = RendezvousAssigner.pair(hu, Hashing.hash64(ms[b].id()));
    double ka = -ms[a].affinity() / StrictMath.log(((pa >>> 25) + 0.5) * 0x1.0p-39);
    double kb = -ms[b].affinity() / StrictMath.log(((pb >>> 25) + 0.5) * 0x1.0p-39);
    return ka > kb || (ka == kb && a > b);
  }

  @Property(tries = 150)
  void leaveMovesOnlyTheLeaversUnits(@ForAll("cases") Case c, @ForAll @IntRange(min = 0, max = 1000) int pick) {
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

  @Property(tries = 150)
  void joinTakesOnlyWhatTheJoinerWins(@ForAll("cases") Case c, @ForAll @IntRange(min = 1, max = 5) int w) {
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

  @Property(tries = 150)
  void affinityChangeUpdateEqualsFullRun(@ForAll("cases") Case c, @ForAll @IntRange(min = 0, max = 6) int w, @ForAll @IntRange(min = 0, max = 1000) int pick) {
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

  @Property(tries = 150)
  void unitChurnMovesNoOtherUnit(@ForAll("cases") Case c, @ForAll @IntRange(min = 0, max = 20) int churn) {
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

  @Property(tries = 100)
  void capacityIsNeverExceededAndOverflowIsReported(@ForAll("cases") Case c, @ForAll @IntRange(min = 0, max = 20) int cap) {
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
