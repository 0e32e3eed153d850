package io.allot.core.assign;

import static io.allot.core.assign.BalancedFixtures.reordered;
import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import io.allot.core.testing.Tries;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Determinism as the {@link Assigner} contract defines it: the table is a function of the table in
 * force and the inputs, so any distributor instance computes the same. Two independent instances
 * of every strategy (the default first), fed the inputs in different orders and collection types
 * and separate copies of the table in force, give identical tables; and a chain of changes applied
 * with {@link Assigner#update} by one instance gives, at every step, the same table as {@link
 * Assigner#assign} from the same table in force by the other. The inputs are those of {@link
 * BalancedAssignerProperties} (its edge cases first, then seeded random ones, through {@link Tries}), for each
 * strategy.
 */
class DeterminismProperties {

  record Start(List<Member> members, List<String> units, Table previous) {
    @Override
    public String toString() {
      return "members=" + members + "\nunits=" + units + "\nprevious=" + previous.byMember() + " unassigned=" + previous.unassigned();
    }
  }

  /** A start, a strategy and a seed for the orders and the changes. */
  record Case(Start s, String name, long seed) {}

  static Start start(Random r) {
    return new Start(
        BalancedAssignerProperties.memberList(r, true, true, 0),
        BalancedAssignerProperties.unitList(r, 150),
        BalancedAssignerProperties.previousTable(r));
  }

  static List<String> strategies() {
    List<String> names = new ArrayList<>(Assigners.names());
    names.add("rendezvous"); // retired from names() but still accepted
    return names;
  }

  static Case randomCase(Random r) {
    List<String> names = strategies();
    return new Case(start(r), names.get(r.nextInt(names.size())), r.nextLong());
  }

  /** Every strategy on every edge case of {@link BalancedAssignerProperties#edgeScenarios()}. */
  static List<Case> edgeCases() {
    List<Case> out = new ArrayList<>();
    for (BalancedAssignerProperties.Scenario s : BalancedAssignerProperties.edgeScenarios()) {
      for (String name : strategies()) {
        out.add(new Case(new Start(s.members(), s.units(), s.previous()), name, 0));
      }
    }
    return out;
  }

  /** A copy that shares nothing with {@code t} (and carries no strategy-private facts). */
  static Table copy(Table t) {
    java.util.Map<String, List<String>> m = new java.util.LinkedHashMap<>();
    t.byMember().forEach((k, v) -> m.put(new String(k), v.stream().map(String::new).toList()));
    return Table.of(m, t.unassigned().stream().map(String::new).toList());
  }

  @Test
  void twoInstancesGiveTheSameTableWhateverTheInputOrder() {
    Tries.forAll(300, edgeCases(), DeterminismProperties::randomCase,
        c -> twoInstancesGiveTheSameTableWhateverTheInputOrder(c.s(), c.name(), c.seed()));
  }

  private void twoInstancesGiveTheSameTableWhateverTheInputOrder(Start s, String name, long seed) {
    Assigner a = Assigners.byName(name);
    Assigner b = Assigners.byName(name);
    Table ta = a.assign(s.members(), s.units(), s.previous());
    Table tb = b.assign(reordered(s.members(), seed), reordered(s.units(), seed + 1), copy(s.previous()));
    assertThat(tb).isEqualTo(ta);
    assertThat(tb.unassigned()).isEqualTo(ta.unassigned());
    if (!a.usesPrevious()) {
      assertThat(b.assign(s.members(), s.units())).isEqualTo(ta); // stateless: the inputs alone
    }
  }

  @Test
  void chainsOfChangesGiveTheSameTablesByUpdateAndByAssign() {
    Tries.forAll(300, edgeCases(), DeterminismProperties::randomCase,
        c -> chainsOfChangesGiveTheSameTablesByUpdateAndByAssign(c.s(), c.name(), c.seed()));
  }

  private void chainsOfChangesGiveTheSameTablesByUpdateAndByAssign(Start s, String name, long seed) {
    Random rnd = new Random(seed);
    Assigner viaUpdate = Assigners.byName(name);
    Assigner viaAssign = Assigners.byName(name);
    List<Member> members = s.members();
    List<String> units = s.units();
    Table tu = viaUpdate.assign(members, units, s.previous());
    Table ta = viaAssign.assign(reordered(members, seed), reordered(units, seed + 1), copy(s.previous()));
    assertThat(ta).isEqualTo(tu);
    for (int i = 0; i < 6; i++) {
      BalancedAssignerProperties.Step step = BalancedAssignerProperties.randomStep(members, units, rnd);
      Changes c = step.changes();
      if (rnd.nextBoolean()) {
        tu.ownerIndex(); // as a running distributor has it: update may then look units up in it
      }
      if (rnd.nextBoolean()) { // the hint's units as other String instances than the table's
        c = new Changes(c.membersAdded(), c.membersRemoved(), c.membersChanged(),
            copies(c.unitsAdded()), copies(c.unitsRemoved()));
      }
      tu = viaUpdate.update(tu, step.members(), step.units(), c);
      ta = viaAssign.assign(reordered(step.members(), seed + i), reordered(step.units(), seed - i), copy(ta));
      assertThat(tu).as("step %s: %s", i, step.changes()).isEqualTo(ta);
      members = step.members();
      units = step.units();
    }
  }

  static java.util.Set<String> copies(java.util.Set<String> units) {
    java.util.Set<String> out = new java.util.HashSet<>();
    units.forEach(u -> out.add(new String(u)));
    return out;
  }

  @Test
  void theDefaultIsBalancedAndListedFirst() {
    assertThat(Assigners.DEFAULT).isEqualTo("balanced");
    assertThat(Assigners.names().get(0)).isEqualTo(Assigners.DEFAULT);
    assertThat(Assigners.byName(Assigners.DEFAULT)).isInstanceOf(BalancedAssigner.class);
    assertThat(Assigners.names()).doesNotContain("rendezvous");
    assertThat(Assigners.byName("rendezvous").name()).isEqualTo("rendezvous");
  }
}
