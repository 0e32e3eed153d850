package io.allot.core.assign;

import static io.allot.core.assign.BalancedFixtures.checkInvariants;
import static io.allot.core.assign.BalancedFixtures.decorate;
import static io.allot.core.assign.BalancedFixtures.fewestMoves;
import static io.allot.core.assign.BalancedFixtures.moved;
import static io.allot.core.assign.BalancedFixtures.optimum;
import static io.allot.core.assign.BalancedFixtures.reordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;

/** Property tests of the {@code balanced} strategy. */
class BalancedAssignerProperties {
  private final BalancedAssigner balanced = new BalancedAssigner();

  /** Inputs plus a previous table that may come from anywhere. */
  record Scenario(List<Member> members, List<String> units, Table previous) {
    @Override
    public String toString() {
      // not Table.format(): it rejects unit names with ','
      return "members=" + members + "\nunits=" + units + "\nprevious=" + previous.byMember() + " unassigned=" + previous.unassigned();
    }
  }

  // ------------------------------------------------------------------------------ generators

  static Arbitrary<String> memberIds() {
    return Arbitraries.integers().between(0, 30).map(i -> decorate("m", i));
  }

  static Arbitrary<Member> members(boolean weighted, boolean capped) {
    Arbitrary<Integer> affinity =
        weighted
            ? Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just(0)),
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(1, 6)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(100, 1000)))
            : Arbitraries.just(1);
    Arbitrary<Integer> capacity =
        capped
            ? Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.just(Member.UNLIMITED)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 25)))
            : Arbitraries.just(Member.UNLIMITED);
    return Combinators.combine(memberIds(), affinity, capacity).as(Member::of);
  }

  static Arbitrary<List<Member>> memberLists(boolean weighted, boolean capped, int min) {
    return members(weighted, capped)
        .list()
        .ofMinSize(min)
        .ofMaxSize(10)
        .withSizeDistribution(RandomDistribution.uniform())
        .uniqueElements(Member::id);
  }

  static Arbitrary<List<String>> unitLists(int max) {
    return Arbitraries.integers()
        .between(0, 400)
        .map(i -> decorate("u", i))
        .list()
        .ofMaxSize(max)
        .withSizeDistribution(RandomDistribution.uniform())
        .uniqueElements();
  }

  /** A previous table: empty, produced by the strategy from other inputs, or arbitrary. */
  static Arbitrary<Table> previousTables() {
    Arbitrary<Table> produced =
        Combinators.combine(memberLists(true, true, 0), unitLists(150))
            .as((ms, us) -> new BalancedAssigner().assign(ms, us));
    Arbitrary<Table> arbitrary =
        Combinators.combine(memberIds().list().ofMaxSize(8).uniqueElements(), unitLists(150), Arbitraries.randoms())
            .as(
                (ids, us, rnd) -> {
                  Map<String, List<String>> m = new LinkedHashMap<>();
                  ids.forEach(id -> m.put(id, new ArrayList<>()));
                  List<String> unassigned = new ArrayList<>();
                  for (String u : us) {
                    int k = rnd.nextInt(ids.size() + 1);
                    if (k == ids.size()) {
                      unassigned.add(u);
                    } else {
                      m.get(ids.get(k)).add(u);
                    }
                  }
                  return Table.of(m, unassigned);
                });
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just(Table.EMPTY)),
        net.jqwik.api.Tuple.of(3, produced),
        net.jqwik.api.Tuple.of(2, arbitrary));
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Combinators.combine(memberLists(true, true, 0), unitLists(150), previousTables()).as(Scenario::new);
  }

  /** Members that all have affinity 1 (with or without capacities) and a table they produced. */
  @Provide
  Arbitrary<Scenario> equalScenarios() {
    return Combinators.combine(memberLists(false, true, 1), unitLists(150))
        .as((ms, us) -> new Scenario(ms, us, new BalancedAssigner().assign(ms, us)));
  }

  /** Weighted members without capacities, and a table they produced. */
  @Provide
  Arbitrary<Scenario> settledScenarios() {
    return Combinators.combine(memberLists(true, true, 1), unitLists(150), previousTables())
        .as((ms, us, older) -> new Scenario(ms, us, new BalancedAssigner().assign(ms, us, older)));
  }

  // ------------------------------------------------------------------------------ properties

  @Property(tries = 400)
  void deterministicWhateverTheCollectionOrder(@ForAll("scenarios") Scenario s, @ForAll long seed) {
    Table a = balanced.assign(s.members(), s.units(), s.previous());
    Collection<Member> ms = reordered(s.members(), seed);
    Collection<String> us = reordered(s.units(), seed + 1);
    assertThat(balanced.assign(ms, us, s.previous())).isEqualTo(a);
    assertThat(balanced.assign(ms, us, s.previous())).isEqualTo(a); // and stateless
  }

  @Property(tries = 1000)
  void coverageCapacityAffinityZeroAndWeightedBalance(@ForAll("scenarios") Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    checkInvariants(t, s.members(), s.units());
  }

  @Property(tries = 400)
  void keepsPreviousUnitsInOrderUpToQuotaAndAppendsNewOnes(@ForAll("scenarios") Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    Set<String> present = new HashSet<>(s.units());
    for (Member m : s.members()) {
      List<String> now = t.unitsOf(m.id());
      if (m.affinity() == 0) {
        continue;
      }
      List<String> before = new ArrayList<>(s.previous().unitsOf(m.id()));
      before.retainAll(present);
      int kept = Math.min(before.size(), now.size());
      // the kept units are a prefix of what it held, in the same order
      assertThat(now.subList(0, kept)).isEqualTo(before.subList(0, kept));
      // and everything after them is new to it
      for (String u : now.subList(kept, now.size())) {
        assertThat(before).doesNotContain(u);
      }
    }
  }

  @Property(tries = 1000)
  void movesTheFewestUnitsOfAnyBalancedTable(@ForAll("scenarios") Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    assertThat((long) moved(s.previous(), t, s.units())).isEqualTo(fewestMoves(s.previous(), s.members(), s.units()));
  }

  @Property(tries = 300)
  void runningAgainMovesNothing(@ForAll("scenarios") Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    assertThat(balanced.assign(s.members(), s.units(), t)).isEqualTo(t);
  }

  @Property(tries = 300)
  void capacityShortfallKeepsRunningUnitsAndParksTheRest(@ForAll("settledScenarios") Scenario s, @ForAll("unitListsForChurn") List<String> extra) {
    // add units; anything that does not fit waits, while every running unit keeps running
    List<String> units = new ArrayList<>(s.units());
    for (String u : extra) {
      if (!units.contains(u)) {
        units.add(u);
      }
    }
    Table t = balanced.assign(s.members(), units, s.previous());
    checkInvariants(t, s.members(), units);
    long runningBefore = s.previous().assignedCount();
    long capacity = 0;
    for (Member m : s.members()) {
      if (m.affinity() > 0) {
        capacity += m.capacity();
      }
    }
    assertThat((long) t.assignedCount()).isEqualTo(Math.min(units.size(), capacity));
    if (capacity >= runningBefore) {
      Set<String> running = s.previous().ownerIndex().keySet();
      assertThat(t.unassigned()).noneMatch(running::contains);
    }
  }

  @Provide
  Arbitrary<List<String>> unitListsForChurn() {
    return Arbitraries.integers().between(400, 700).map(i -> decorate("n", i)).list().ofMaxSize(40).uniqueElements();
  }

  @Property(tries = 400)
  void oneMemberLeavingMovesExactlyTheOptimum(@ForAll("settledScenarios") Scenario s, @ForAll @IntRange(min = 0, max = 100) int pick) {
    List<Member> after = new ArrayList<>(s.members());
    Member gone = after.remove(pick % after.size());
    Table t = balanced.assign(after, s.units(), s.previous());
    checkInvariants(t, after, s.units());
    int moved = moved(s.previous(), t, s.units());
    assertThat(moved).isEqualTo(optimum(s.previous(), t));
    // with equal affinities and no capacities, only its units move (with unequal ones the others'
    // shares all grow, and the rounding can force a few more moves: see removingUnits... below)
    if (equalAndUncapped(after) && after.stream().anyMatch(m -> m.affinity() > 0)) {
      assertThat(moved).isEqualTo(s.previous().unitsOf(gone.id()).size());
    }
  }

  static boolean equalAndUncapped(List<Member> ms) {
    return ms.stream().noneMatch(Member::hasCapacityLimit) && ms.stream().map(Member::affinity).distinct().count() <= 1;
  }

  @Property(tries = 400)
  void oneMemberJoiningMovesAtMostTheOptimum(@ForAll("settledScenarios") Scenario s, @ForAll("joiners") Member joiner) {
    if (s.members().stream().anyMatch(m -> m.id().equals(joiner.id()))) {
      return;
    }
    List<Member> after = new ArrayList<>(s.members());
    after.add(joiner);
    Table t = balanced.assign(after, s.units(), s.previous());
    checkInvariants(t, after, s.units());
    int moved = moved(s.previous(), t, s.units());
    int optimum = optimum(s.previous(), t);
    assertThat((double) moved).isLessThanOrEqualTo(1.02 * optimum);
    assertThat(moved).isEqualTo(optimum);
    // with equal affinities and no capacities, units only move to the new member
    if (equalAndUncapped(after)) {
      assertThat(moved).isEqualTo(t.unitsOf(joiner.id()).size());
    }
  }

  @Provide
  Arbitrary<Member> joiners() {
    return Combinators.combine(Arbitraries.integers().between(100, 120), Arbitraries.integers().between(0, 8))
        .as((i, w) -> Member.of(decorate("joiner", i), w));
  }

  @Property(tries = 400)
  void withEqualAffinitiesAddingOrReplacingUnitsMovesNoOtherUnit(
      @ForAll("equalScenarios") Scenario s, @ForAll("unitListsForChurn") List<String> added, @ForAll boolean replace) {
    List<String> units = new ArrayList<>(s.units());
    List<String> removed = new ArrayList<>();
    for (String u : added) {
      if (replace && !units.isEmpty()) {
        removed.add(units.remove(Math.floorMod(u.hashCode(), units.size())));
      }
      units.add(u);
    }
    Table t = balanced.assign(s.members(), units, s.previous());
    checkInvariants(t, s.members(), units);
    assertThat(moved(s.previous(), t, units)).as("other units moved").isZero();
  }

  @Property(tries = 400)
  void removingUnitsMovesOnlyWhatBalanceRequires(@ForAll("settledScenarios") Scenario s, @ForAll @IntRange(min = 1, max = 20) int k) {
    List<String> units = new ArrayList<>(s.units());
    for (int i = 0; i < k && !units.isEmpty(); i++) {
      units.remove((i * 7919) % units.size());
    }
    Table t = balanced.assign(s.members(), units, s.previous());
    checkInvariants(t, s.members(), units);
    assertThat((long) moved(s.previous(), t, units)).isEqualTo(fewestMoves(s.previous(), s.members(), units));
  }

  // ------------------------------------------------------------------------------ update

  /** One random step from (members, units) to (members', units'), with the matching hint. */
  record Step(List<Member> members, List<String> units, Changes changes) {}

  static Step randomStep(List<Member> members, List<String> units, Random rnd) {
    Map<String, Member> ms = new TreeMap<>();
    members.forEach(m -> ms.put(m.id(), m));
    Set<String> mAdded = new HashSet<>();
    Set<String> mRemoved = new HashSet<>();
    Set<String> mChanged = new HashSet<>();
    int kinds = rnd.nextInt(4);
    int memberOps = kinds == 1 ? 0 : rnd.nextInt(3);
    for (int i = 0; i < memberOps; i++) {
      int op = rnd.nextInt(3);
      List<String> ids = new ArrayList<>(ms.keySet());
      if (op == 0 || ids.isEmpty()) {
        String id = decorate("m", 31 + rnd.nextInt(40));
        if (!ms.containsKey(id)) {
          ms.put(id, Member.of(id, rnd.nextInt(5), rnd.nextInt(4) == 0 ? rnd.nextInt(30) : Member.UNLIMITED));
          if (!mRemoved.remove(id)) {
            mAdded.add(id);
          } else {
            mChanged.add(id);
          }
        }
      } else if (op == 1) {
        String id = ids.get(rnd.nextInt(ids.size()));
        ms.remove(id);
        if (!mAdded.remove(id)) {
          mRemoved.add(id);
          mChanged.remove(id);
        }
      } else {
        String id = ids.get(rnd.nextInt(ids.size()));
        Member m = ms.get(id);
        ms.put(id, rnd.nextBoolean() ? m.withAffinity(rnd.nextInt(6)) : m.withCapacity(rnd.nextInt(3) == 0 ? Member.UNLIMITED : rnd.nextInt(40)));
        if (!mAdded.contains(id)) {
          mChanged.add(id);
        }
      }
    }
    List<String> us = new ArrayList<>(units);
    Set<String> uAdded = new HashSet<>();
    Set<String> uRemoved = new HashSet<>();
    if (kinds != 0) {
      int removals = rnd.nextInt(Math.min(us.size(), 15) + 1);
      for (int i = 0; i < removals; i++) {
        uRemoved.add(us.remove(rnd.nextInt(us.size())));
      }
      int additions = rnd.nextInt(20);
      for (int i = 0; i < additions; i++) {
        String u = decorate("u", rnd.nextInt(800));
        if (!us.contains(u) && !uRemoved.contains(u)) {
          us.add(u);
          uAdded.add(u);
        }
      }
    }
    java.util.Collections.shuffle(us, rnd);
    List<Member> ml = new ArrayList<>(ms.values());
    java.util.Collections.shuffle(ml, rnd);
    return new Step(ml, us, new Changes(mAdded, mRemoved, mChanged, uAdded, uRemoved));
  }

  @Property(tries = 1000)
  void updateEqualsAssignForRandomChanges(@ForAll("scenarios") Scenario s, @ForAll long seed) {
    Random rnd = new Random(seed);
    // a chain of updates, each checked against the full computation
    List<Member> members = s.members();
    List<String> units = s.units();
    Table table = balanced.assign(members, units, s.previous());
    for (int i = 0; i < 4; i++) {
      Step step = randomStep(members, units, rnd);
      Table full = balanced.assign(step.members(), step.units(), table);
      Table fast = balanced.update(table, step.members(), step.units(), step.changes());
      assertThat(fast).as("step %s: %s", i, step.changes()).isEqualTo(full);
      checkInvariants(fast, step.members(), step.units());
      members = step.members();
      units = step.units();
      table = fast;
    }
  }

  @Property(tries = 200)
  void updateWithAWrongUnitHintStillEqualsAssign(@ForAll("scenarios") Scenario s, @ForAll long seed) {
    Random rnd = new Random(seed);
    Table table = balanced.assign(s.members(), s.units(), s.previous());
    Step step = randomStep(s.members(), s.units(), rnd);
    Table full = balanced.assign(step.members(), step.units(), table);
    Changes c = step.changes();
    // lie about the units in ways update can see: sizes off, "added" already there, "removed" unknown
    List<Changes> lies = new ArrayList<>();
    Set<String> plusNever = new HashSet<>(c.unitsRemoved());
    plusNever.add("never-seen-unit");
    lies.add(withUnits(c, c.unitsAdded(), plusNever)); // size off
    Set<String> addedNew = new HashSet<>(c.unitsAdded());
    addedNew.add("not-in-units");
    lies.add(withUnits(c, addedNew, c.unitsRemoved())); // size off
    lies.add(withUnits(c, addedNew, plusNever)); // size right, a removed unit is not in the table
    for (String u : step.units()) {
      if (!c.unitsAdded().contains(u)) {
        Set<String> addedOld = new HashSet<>(c.unitsAdded());
        addedOld.add(u);
        lies.add(withUnits(c, addedOld, plusNever)); // size right, an "added" unit is in the table
        break;
      }
    }
    if (step.units().size() != table.unitCount()) {
      lies.add(Changes.NONE); // size off
    }
    for (Changes lie : lies) {
      assertThat(balanced.update(table, step.members(), step.units(), lie)).as("%s", lie).isEqualTo(full);
    }
  }

  static Changes withUnits(Changes c, Set<String> added, Set<String> removed) {
    return new Changes(c.membersAdded(), c.membersRemoved(), c.membersChanged(), added, removed);
  }

  // ------------------------------------------------------------------------------ bad input

  @Property(tries = 200)
  void duplicateOrEmptyUnitsAreRejectedNamingThem(@ForAll("scenarios") Scenario s, @ForAll @IntRange(min = 0, max = 1000) int at, @ForAll boolean empty) {
    List<String> units = new ArrayList<>(s.units());
    String bad;
    if (empty || units.isEmpty()) {
      bad = "";
    } else {
      bad = units.get(at % units.size());
    }
    units.add(at % (units.size() + 1), bad);
    String expected;
    try {
      Inputs.units(units);
      throw new AssertionError("Inputs accepted " + units);
    } catch (IllegalArgumentException e) {
      expected = e.getMessage();
    }
    assertThatThrownBy(() -> balanced.assign(s.members(), units, s.previous()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);
    assertThat(expected)
        .isEqualTo(bad.isEmpty() ? "unit name is empty" : "unit " + io.allot.core.model.Names.quote(bad) + " is listed twice");
  }

  @Property(tries = 100)
  void duplicateMembersAreRejectedNamingThem(@ForAll("scenarios") Scenario s, @ForAll @IntRange(min = 0, max = 1000) int at) {
    if (s.members().isEmpty()) {
      return;
    }
    List<Member> members = new ArrayList<>(s.members());
    Member twice = members.get(at % members.size());
    members.add(Member.of(twice.id(), 3));
    assertThatThrownBy(() -> balanced.assign(members, s.units(), s.previous()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> balanced.update(s.previous(), members, s.units(), Changes.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
  }
}
