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
import io.allot.core.testing.Tries;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Property tests of the {@code balanced} strategy. Each {@code @Test} runs its property (the private method of the
 * same name) on the edge scenarios first, then on seeded random ones ({@link Tries}: a failure prints the seed, and
 * {@code -Dallot.seed=<seed>} replays it); the generators are shared with {@link DeterminismProperties}.
 */
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

  static String memberId(Random r) {
    return decorate("m", Tries.between(r, 0, 30));
  }

  static Member member(Random r, boolean weighted, boolean capped) {
    String id = memberId(r);
    int affinity = 1;
    if (weighted) {
      affinity = switch (Tries.weighted(r, 1, 6, 1)) {
        case 0 -> 0;
        case 1 -> Tries.between(r, 1, 6);
        default -> Tries.between(r, 100, 1000);
      };
    }
    int capacity = capped && Tries.weighted(r, 3, 2) == 1 ? Tries.between(r, 0, 25) : Member.UNLIMITED;
    return Member.of(id, affinity, capacity);
  }

  /** {@code min} to 10 members (each size equally likely), with distinct ids. */
  static List<Member> memberList(Random r, boolean weighted, boolean capped, int min) {
    int size = min + r.nextInt(10 - min + 1);
    Map<String, Member> byId = new LinkedHashMap<>();
    while (byId.size() < size) {
      Member m = member(r, weighted, capped);
      byId.putIfAbsent(m.id(), m);
    }
    return new ArrayList<>(byId.values());
  }

  /** 0 to {@code max} distinct units (each size equally likely). */
  static List<String> unitList(Random r, int max) {
    int size = r.nextInt(max + 1);
    Set<String> units = new LinkedHashSet<>();
    while (units.size() < size) {
      units.add(decorate("u", Tries.between(r, 0, 400)));
    }
    return new ArrayList<>(units);
  }

  /** A previous table: empty, produced by the strategy from other inputs, or arbitrary. */
  static Table previousTable(Random r) {
    return switch (Tries.weighted(r, 1, 3, 2)) {
      case 0 -> Table.EMPTY;
      case 1 -> new BalancedAssigner().assign(memberList(r, true, true, 0), unitList(r, 150));
      default -> arbitraryTable(r);
    };
  }

  /** Up to 8 members holding random parts of up to 150 units, the rest unassigned. */
  static Table arbitraryTable(Random r) {
    int size = Tries.between(r, 0, 8);
    List<String> ids = new ArrayList<>();
    while (ids.size() < size) {
      String id = memberId(r);
      if (!ids.contains(id)) {
        ids.add(id);
      }
    }
    Map<String, List<String>> m = new LinkedHashMap<>();
    ids.forEach(id -> m.put(id, new ArrayList<>()));
    List<String> unassigned = new ArrayList<>();
    for (String u : unitList(r, 150)) {
      int k = r.nextInt(ids.size() + 1);
      if (k == ids.size()) {
        unassigned.add(u);
      } else {
        m.get(ids.get(k)).add(u);
      }
    }
    return Table.of(m, unassigned);
  }

  static Scenario scenario(Random r) {
    return new Scenario(memberList(r, true, true, 0), unitList(r, 150), previousTable(r));
  }

  /** Members that all have affinity 1 (with or without capacities) and a table they produced. */
  static Scenario equalScenario(Random r) {
    List<Member> ms = memberList(r, false, true, 1);
    List<String> us = unitList(r, 150);
    return new Scenario(ms, us, new BalancedAssigner().assign(ms, us));
  }

  /** Weighted members (with or without capacities), and a table they produced from an older one. */
  static Scenario settledScenario(Random r) {
    List<Member> ms = memberList(r, true, true, 1);
    List<String> us = unitList(r, 150);
    return new Scenario(ms, us, new BalancedAssigner().assign(ms, us, previousTable(r)));
  }

  static List<String> units(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(decorate("u", i));
    }
    return out;
  }

  /** Member lists at the edges: none, one plain, one that takes nothing, one without room, extremes mixed. */
  static final List<List<Member>> EDGE_MEMBERS = List.of(
      List.of(),
      List.of(Member.of("m0")),
      List.of(Member.of("m0", 0)),
      List.of(Member.of("m0", 1, 0)),
      List.of(Member.of(decorate("m", 2), 1000, 25), Member.of(decorate("m", 4), 1), Member.of(decorate("m", 7), 0, 0),
          Member.of(decorate("m", 30), 6, 1)));

  /**
   * The cases that random draws reach only now and then, checked before them: no members, no units, one unit, a
   * member with affinity 0 or capacity 0, each from an empty table in force and from one of other members.
   */
  static List<Scenario> edgeScenarios() {
    List<List<String>> unitLists = List.of(List.of(), List.of("u0"), units(150));
    List<Table> previous = List.of(Table.EMPTY, new BalancedAssigner().assign(List.of(Member.of("old", 2)), units(40)));
    List<Scenario> out = new ArrayList<>();
    for (List<Member> ms : EDGE_MEMBERS) {
      for (List<String> us : unitLists) {
        for (Table t : previous) {
          out.add(new Scenario(ms, us, t));
        }
      }
    }
    return out;
  }

  /** {@link #edgeScenarios()} with at least one member, settled: the table in force is the strategy's own. */
  static List<Scenario> settledEdgeScenarios() {
    return edgeScenarios().stream()
        .filter(s -> !s.members().isEmpty())
        .map(s -> new Scenario(s.members(), s.units(), new BalancedAssigner().assign(s.members(), s.units(), s.previous())))
        .toList();
  }

  /** Members of affinity 1 at the edges (one, one without room, several with capacities), settled. */
  static List<Scenario> equalEdgeScenarios() {
    List<List<Member>> memberLists = List.of(
        List.of(Member.of("m0")),
        List.of(Member.of("m0", 1, 0)),
        List.of(Member.of(decorate("m", 1), 1, 25), Member.of(decorate("m", 2)), Member.of(decorate("m", 3), 1, 0)));
    List<Scenario> out = new ArrayList<>();
    for (List<Member> ms : memberLists) {
      for (List<String> us : List.of(List.<String>of(), List.of("u0"), units(150))) {
        out.add(new Scenario(ms, us, new BalancedAssigner().assign(ms, us)));
      }
    }
    return out;
  }

  /** A scenario and a seed for the random parts of a property. */
  record Seeded(Scenario s, long seed) {}

  /** A scenario and a whole number (a pick, a count). */
  record Picked(Scenario s, int pick) {}

  static List<Seeded> seeded(List<Scenario> edges) {
    return edges.stream().map(s -> new Seeded(s, 0)).toList();
  }

  static List<Picked> picked(List<Scenario> edges, int... picks) {
    List<Picked> out = new ArrayList<>();
    for (Scenario s : edges) {
      for (int p : picks) {
        out.add(new Picked(s, p));
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------ properties

  @Test
  void deterministicWhateverTheCollectionOrder() {
    Tries.forAll(400, seeded(edgeScenarios()), r -> new Seeded(scenario(r), r.nextLong()),
        c -> deterministicWhateverTheCollectionOrder(c.s(), c.seed()));
  }

  private void deterministicWhateverTheCollectionOrder(Scenario s, long seed) {
    Table a = balanced.assign(s.members(), s.units(), s.previous());
    Collection<Member> ms = reordered(s.members(), seed);
    Collection<String> us = reordered(s.units(), seed + 1);
    assertThat(balanced.assign(ms, us, s.previous())).isEqualTo(a);
    assertThat(balanced.assign(ms, us, s.previous())).isEqualTo(a); // and stateless
  }

  @Test
  void coverageCapacityAffinityZeroAndWeightedBalance() {
    Tries.forAll(1000, edgeScenarios(), BalancedAssignerProperties::scenario,
        this::coverageCapacityAffinityZeroAndWeightedBalance);
  }

  private void coverageCapacityAffinityZeroAndWeightedBalance(Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    checkInvariants(t, s.members(), s.units());
  }

  @Test
  void keepsPreviousUnitsInOrderUpToQuotaAndAppendsNewOnes() {
    Tries.forAll(400, edgeScenarios(), BalancedAssignerProperties::scenario,
        this::keepsPreviousUnitsInOrderUpToQuotaAndAppendsNewOnes);
  }

  private void keepsPreviousUnitsInOrderUpToQuotaAndAppendsNewOnes(Scenario s) {
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

  @Test
  void movesTheFewestUnitsOfAnyBalancedTable() {
    Tries.forAll(1000, edgeScenarios(), BalancedAssignerProperties::scenario,
        this::movesTheFewestUnitsOfAnyBalancedTable);
  }

  private void movesTheFewestUnitsOfAnyBalancedTable(Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    assertThat((long) moved(s.previous(), t, s.units())).isEqualTo(fewestMoves(s.previous(), s.members(), s.units()));
  }

  @Test
  void runningAgainMovesNothing() {
    Tries.forAll(300, edgeScenarios(), BalancedAssignerProperties::scenario, this::runningAgainMovesNothing);
  }

  private void runningAgainMovesNothing(Scenario s) {
    Table t = balanced.assign(s.members(), s.units(), s.previous());
    assertThat(balanced.assign(s.members(), s.units(), t)).isEqualTo(t);
  }

  /** A settled scenario and new units (up to 40). */
  record Churned(Scenario s, List<String> units) {}

  static List<Churned> churned(List<Scenario> edges) {
    List<Churned> out = new ArrayList<>();
    for (Scenario s : edges) {
      out.add(new Churned(s, List.of()));
      out.add(new Churned(s, List.of(decorate("n", 400))));
      out.add(new Churned(s, churnUnits(40)));
    }
    return out;
  }

  @Test
  void capacityShortfallKeepsRunningUnitsAndParksTheRest() {
    Tries.forAll(300, churned(settledEdgeScenarios()), r -> new Churned(settledScenario(r), unitListForChurn(r)),
        c -> capacityShortfallKeepsRunningUnitsAndParksTheRest(c.s(), c.units()));
  }

  private void capacityShortfallKeepsRunningUnitsAndParksTheRest(Scenario s, List<String> extra) {
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

  /** Up to 40 distinct units that no scenario has. */
  static List<String> unitListForChurn(Random r) {
    int size = Tries.between(r, 0, 40);
    Set<String> units = new LinkedHashSet<>();
    while (units.size() < size) {
      units.add(decorate("n", Tries.between(r, 400, 700)));
    }
    return new ArrayList<>(units);
  }

  static List<String> churnUnits(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(decorate("n", 400 + i));
    }
    return out;
  }

  @Test
  void oneMemberLeavingMovesExactlyTheOptimum() {
    Tries.forAll(400, picked(settledEdgeScenarios(), 0, 1, 100),
        r -> new Picked(settledScenario(r), Tries.between(r, 0, 100)),
        c -> oneMemberLeavingMovesExactlyTheOptimum(c.s(), c.pick()));
  }

  private void oneMemberLeavingMovesExactlyTheOptimum(Scenario s, int pick) {
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

  /** A settled scenario and a member that joins it. */
  record Joined(Scenario s, Member joiner) {}

  @Test
  void oneMemberJoiningMovesAtMostTheOptimum() {
    List<Joined> edges = new ArrayList<>();
    for (Scenario s : settledEdgeScenarios()) {
      for (int w : new int[] {0, 1, 8}) {
        edges.add(new Joined(s, Member.of(decorate("joiner", 100 + w), w)));
      }
    }
    Tries.forAll(400, edges, r -> new Joined(settledScenario(r), joiner(r)),
        c -> oneMemberJoiningMovesAtMostTheOptimum(c.s(), c.joiner()));
  }

  private void oneMemberJoiningMovesAtMostTheOptimum(Scenario s, Member joiner) {
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

  static Member joiner(Random r) {
    return Member.of(decorate("joiner", Tries.between(r, 100, 120)), Tries.between(r, 0, 8));
  }

  @Test
  void withEqualAffinitiesAddingOrReplacingUnitsMovesNoOtherUnit() {
    record Case(Scenario s, List<String> added, boolean replace) {}
    List<Case> edges = new ArrayList<>();
    for (Churned c : churned(equalEdgeScenarios())) {
      edges.add(new Case(c.s(), c.units(), false));
      edges.add(new Case(c.s(), c.units(), true));
    }
    Tries.forAll(400, edges, r -> new Case(equalScenario(r), unitListForChurn(r), r.nextBoolean()),
        c -> withEqualAffinitiesAddingOrReplacingUnitsMovesNoOtherUnit(c.s(), c.added(), c.replace()));
  }

  private void withEqualAffinitiesAddingOrReplacingUnitsMovesNoOtherUnit(Scenario s, List<String> added, boolean replace) {
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

  @Test
  void removingUnitsMovesOnlyWhatBalanceRequires() {
    Tries.forAll(400, picked(settledEdgeScenarios(), 1, 20), r -> new Picked(settledScenario(r), Tries.between(r, 1, 20)),
        c -> removingUnitsMovesOnlyWhatBalanceRequires(c.s(), c.pick()));
  }

  private void removingUnitsMovesOnlyWhatBalanceRequires(Scenario s, int k) {
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

  @Test
  void updateEqualsAssignForRandomChanges() {
    Tries.forAll(1000, seeded(edgeScenarios()), r -> new Seeded(scenario(r), r.nextLong()),
        c -> updateEqualsAssignForRandomChanges(c.s(), c.seed()));
  }

  private void updateEqualsAssignForRandomChanges(Scenario s, long seed) {
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

  @Test
  void updateWithAWrongUnitHintStillEqualsAssign() {
    Tries.forAll(200, seeded(edgeScenarios()), r -> new Seeded(scenario(r), r.nextLong()),
        c -> updateWithAWrongUnitHintStillEqualsAssign(c.s(), c.seed()));
  }

  private void updateWithAWrongUnitHintStillEqualsAssign(Scenario s, long seed) {
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

  @Test
  void duplicateOrEmptyUnitsAreRejectedNamingThem() {
    record Case(Scenario s, int at, boolean empty) {}
    List<Case> edges = new ArrayList<>();
    for (Picked p : picked(edgeScenarios(), 0, 1, 1000)) {
      edges.add(new Case(p.s(), p.pick(), false));
      edges.add(new Case(p.s(), p.pick(), true));
    }
    Tries.forAll(200, edges, r -> new Case(scenario(r), Tries.between(r, 0, 1000), r.nextBoolean()),
        c -> duplicateOrEmptyUnitsAreRejectedNamingThem(c.s(), c.at(), c.empty()));
  }

  private void duplicateOrEmptyUnitsAreRejectedNamingThem(Scenario s, int at, boolean empty) {
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

  @Test
  void duplicateMembersAreRejectedNamingThem() {
    Tries.forAll(100, picked(edgeScenarios(), 0, 1, 1000), r -> new Picked(scenario(r), Tries.between(r, 0, 1000)),
        c -> duplicateMembersAreRejectedNamingThem(c.s(), c.pick()));
  }

  private void duplicateMembersAreRejectedNamingThem(Scenario s, int at) {
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
