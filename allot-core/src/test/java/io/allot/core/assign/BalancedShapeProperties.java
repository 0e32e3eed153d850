package io.allot.core.assign;

import static io.allot.core.assign.BalancedFixtures.checkInvariants;
import static io.allot.core.assign.BalancedFixtures.fewestMoves;
import static io.allot.core.assign.BalancedFixtures.moved;
import static io.allot.core.assign.BalancedFixtures.optimum;
import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import io.allot.core.testing.Tries;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bounds of the default strategy ({@link Assigners#DEFAULT}, {@code balanced}) on the shapes
 * N/M ∈ {1, 2, 5, 20, 100, 1000} (M small, so that the tests stay fast; the benchmark covers M up
 * to 1,000), with weights (affinity) and capacities, from a table in force that the strategy
 * produced:
 *
 * <ul>
 *   <li>balance: every load within one unit of the weighted (water-filled) share, so the maximum
 *       is at most {@code ceil(share)};
 *   <li>one member leaving or joining moves at most 1.02x the optimum (in fact exactly the
 *       optimum, and the fewest of any balanced table);
 *   <li>units added, replaced or removed: with equal affinities, adding or replacing units moves no
 *       other unit; with unequal ones adding units moves at most one unit per member (the
 *       Alabama-paradox case), and removing units moves exactly what balance forces;
 *   <li>{@link Assigner#update} equals {@link Assigner#assign} for each change.
 * </ul>
 *
 * <p>Each property runs on every ratio and kind first (seed 0), then on random shapes ({@link Tries}).
 */
class BalancedShapeProperties {
  private final Assigner assigner = Assigners.byName(Assigners.DEFAULT);

  /** A shape with its members, units and a settled table in force. */
  record Shape(int ratio, List<Member> members, List<String> units, Table previous, long seed) {
    @Override
    public String toString() {
      return "N/M=" + ratio + " members=" + members + " N=" + units.size() + " seed=" + seed;
    }
  }

  static final int[] RATIOS = {1, 2, 5, 20, 100, 1000};

  static Shape randomShape(Random r) {
    return shape(RATIOS[r.nextInt(RATIOS.length)], r.nextInt(4), r.nextLong());
  }

  /** Every ratio with every kind. */
  static List<Shape> edgeShapes() {
    List<Shape> out = new ArrayList<>();
    for (int ratio : RATIOS) {
      for (int kind = 0; kind < 4; kind++) {
        out.add(shape(ratio, kind, 0));
      }
    }
    return out;
  }

  /** kind: 0 equal affinities, 1 weighted, 2 equal with capacities, 3 weighted with capacities. */
  static Shape shape(int ratio, int kind, long seed) {
    Random rnd = new Random(seed);
    int maxM = ratio >= 1000 ? 3 : ratio >= 100 ? 10 : 30;
    int m = 2 + rnd.nextInt(maxM - 1);
    boolean weighted = (kind & 1) != 0;
    boolean capped = (kind & 2) != 0;
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < m; i++) {
      int w = weighted ? 1 + rnd.nextInt(5) : 1;
      int cap = capped && rnd.nextInt(3) == 0 ? rnd.nextInt(2 * ratio + 2) : Member.UNLIMITED;
      ms.add(Member.of(BalancedFixtures.decorate("m", i), w, cap));
    }
    int n = ratio * m;
    List<String> units = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      units.add("u" + i);
    }
    // settle: the table in force comes from an older unit set and the strategy itself
    List<String> older = new ArrayList<>(units.subList(0, n - n / 10));
    for (int i = 0; i < n / 20; i++) {
      older.add("old" + i);
    }
    Assigner a = Assigners.byName(Assigners.DEFAULT);
    Table previous = a.assign(ms, units, a.assign(ms, older));
    return new Shape(ratio, List.copyOf(ms), List.copyOf(units), previous, seed);
  }

  static boolean equalAndUncapped(List<Member> ms) {
    return BalancedAssignerProperties.equalAndUncapped(ms);
  }

  /** All affinities equal (capacities or not). */
  static boolean equalAffinities(List<Member> ms) {
    return ms.stream().map(Member::affinity).distinct().count() <= 1;
  }

  /** Checks the table of a change and that update gives the same. */
  private Table after(Shape s, List<Member> members, List<String> units, Changes changes) {
    Table t = assigner.assign(members, units, s.previous());
    checkInvariants(t, members, units); // within one unit of the weighted share: max <= ceil(share)
    assertThat(assigner.update(s.previous(), members, units, changes)).isEqualTo(t);
    return t;
  }

  @Test
  void balanceIsWithinOneUnitOfTheWeightedShare() {
    Tries.forAll(300, edgeShapes(), BalancedShapeProperties::randomShape,
        this::balanceIsWithinOneUnitOfTheWeightedShare);
  }

  private void balanceIsWithinOneUnitOfTheWeightedShare(Shape s) {
    checkInvariants(s.previous(), s.members(), s.units());
    assertThat(assigner.assign(s.members(), s.units(), s.previous())).isEqualTo(s.previous()); // settled
  }

  @Test
  void oneMemberLeavingMovesTheOptimum() {
    Tries.forAll(300, edgeShapes(), BalancedShapeProperties::randomShape, this::oneMemberLeavingMovesTheOptimum);
  }

  private void oneMemberLeavingMovesTheOptimum(Shape s) {
    List<Member> after = new ArrayList<>(s.members());
    Member gone = after.remove((int) Math.floorMod(s.seed(), (long) after.size()));
    Table t = after(s, after, s.units(), Changes.memberRemoved(gone.id()));
    int moved = moved(s.previous(), t, s.units());
    assertThat((double) moved).isLessThanOrEqualTo(1.02 * optimum(s.previous(), t));
    assertThat((long) moved).isEqualTo(fewestMoves(s.previous(), after, s.units()));
    if (equalAndUncapped(after)) {
      assertThat(moved).isEqualTo(s.previous().unitsOf(gone.id()).size());
    }
  }

  @Test
  void oneMemberJoiningMovesTheOptimum() {
    Tries.forAll(300, edgeShapes(), BalancedShapeProperties::randomShape, this::oneMemberJoiningMovesTheOptimum);
  }

  private void oneMemberJoiningMovesTheOptimum(Shape s) {
    List<Member> after = new ArrayList<>(s.members());
    Member joiner = Member.of("joiner", 1 + (int) Math.floorMod(s.seed(), 5L));
    after.add(joiner);
    Table t = after(s, after, s.units(), Changes.memberAdded(joiner.id()));
    int moved = moved(s.previous(), t, s.units());
    assertThat((double) moved).isLessThanOrEqualTo(1.02 * optimum(s.previous(), t));
    assertThat((long) moved).isEqualTo(fewestMoves(s.previous(), after, s.units()));
    if (equalAndUncapped(after)) {
      assertThat(moved).isEqualTo(t.unitsOf(joiner.id()).size());
    }
  }

  /** 1 % of the units (at least one), picked by the seed. */
  static List<String> onePercent(Shape s) {
    List<String> pool = new ArrayList<>(s.units());
    java.util.Collections.shuffle(pool, new Random(s.seed()));
    return pool.subList(0, Math.max(1, pool.size() / 100));
  }

  static List<String> fresh(int k) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      out.add("new" + i);
    }
    return out;
  }

  @Test
  void addingUnitsMovesNoOtherUnitWithEqualAffinitiesAndAtMostOnePerMemberOtherwise() {
    Tries.forAll(300, edgeShapes(), BalancedShapeProperties::randomShape,
        this::addingUnitsMovesNoOtherUnitWithEqualAffinitiesAndAtMostOnePerMemberOtherwise);
  }

  private void addingUnitsMovesNoOtherUnitWithEqualAffinitiesAndAtMostOnePerMemberOtherwise(Shape s) {
    List<String> added = fresh(onePercent(s).size());
    List<String> units = new ArrayList<>(s.units());
    units.addAll(added);
    Table t = after(s, s.members(), units, Changes.units(new HashSet<>(added), Set.of()));
    int moved = moved(s.previous(), t, units);
    assertThat((long) moved).isEqualTo(fewestMoves(s.previous(), s.members(), units));
    if (equalAffinities(s.members())) {
      assertThat(moved).isZero();
    }
    for (Member m : s.members()) {
      List<String> lost = new ArrayList<>(s.previous().unitsOf(m.id()));
      lost.removeAll(t.unitsOf(m.id()));
      assertThat(lost).as("units %s gave up", m).hasSizeLessThanOrEqualTo(1);
    }
  }

  @Test
  void replacingUnitsMovesNoOtherUnitWithEqualAffinities() {
    Tries.forAll(300, edgeShapes(), BalancedShapeProperties::randomShape,
        this::replacingUnitsMovesNoOtherUnitWithEqualAffinities);
  }

  private void replacingUnitsMovesNoOtherUnitWithEqualAffinities(Shape s) {
    List<String> removed = onePercent(s);
    List<String> added = fresh(removed.size());
    List<String> units = new ArrayList<>(s.units());
    units.removeAll(removed);
    units.addAll(added);
    Table t = after(s, s.members(), units, Changes.units(new HashSet<>(added), new HashSet<>(removed)));
    int moved = moved(s.previous(), t, units);
    assertThat((long) moved).isEqualTo(fewestMoves(s.previous(), s.members(), units));
    if (equalAffinities(s.members())) {
      assertThat(moved).isZero();
    }
  }

  @Test
  void removingUnitsMovesExactlyWhatBalanceForces() {
    Tries.forAll(300, edgeShapes(), BalancedShapeProperties::randomShape,
        this::removingUnitsMovesExactlyWhatBalanceForces);
  }

  private void removingUnitsMovesExactlyWhatBalanceForces(Shape s) {
    List<String> removed = onePercent(s);
    List<String> units = new ArrayList<>(s.units());
    units.removeAll(removed);
    Table t = after(s, s.members(), units, Changes.units(Set.of(), new LinkedHashSet<>(removed)));
    assertThat((long) moved(s.previous(), t, units)).isEqualTo(fewestMoves(s.previous(), s.members(), units));
  }
}
