package io.allot.core.assign;

import static io.allot.core.assign.BalancedFixtures.reordered;
import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Determinism as the {@link Assigner} contract defines it: the table is a function of the table in
 * force and the inputs, so any distributor instance computes the same. Two independent instances
 * of every strategy (the default first), fed the inputs in different orders and collection types
 * and separate copies of the table in force, give identical tables; and a chain of changes applied
 * with {@link Assigner#update} by one instance gives, at every step, the same table as {@link
 * Assigner#assign} from the same table in force by the other.
 */
class DeterminismProperties {

  record Start(List<Member> members, List<String> units, Table previous) {
    @Override
    public String toString() {
      return "members=" + members + "\nunits=" + units + "\nprevious=" + previous.byMember() + " unassigned=" + previous.unassigned();
    }
  }

  @Provide
  Arbitrary<Start> starts() {
    return Combinators.combine(
            BalancedAssignerProperties.memberLists(true, true, 0),
            BalancedAssignerProperties.unitLists(150),
            BalancedAssignerProperties.previousTables())
        .as(Start::new);
  }

  @Provide
  Arbitrary<String> strategies() {
    List<String> names = new ArrayList<>(Assigners.names());
    names.add("rendezvous"); // retired from names() but still accepted
    return Arbitraries.of(names);
  }

  /** A copy that shares nothing with {@code t} (and carries no strategy-private facts). */
  static Table copy(Table t) {
    java.util.Map<String, List<String>> m = new java.util.LinkedHashMap<>();
    t.byMember().forEach((k, v) -> m.put(new String(k), v.stream().map(String::new).toList()));
    return Table.of(m, t.unassigned().stream().map(String::new).toList());
  }

  @Property(tries = 300)
  void twoInstancesGiveTheSameTableWhateverTheInputOrder(
      @ForAll("starts") Start s, @ForAll("strategies") String name, @ForAll long seed) {
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

  @Property(tries = 300)
  void chainsOfChangesGiveTheSameTablesByUpdateAndByAssign(
      @ForAll("starts") Start s, @ForAll("strategies") String name, @ForAll long seed) {
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

  @Example
  void theDefaultIsBalancedAndListedFirst() {
    assertThat(Assigners.DEFAULT).isEqualTo("balanced");
    assertThat(Assigners.names().get(0)).isEqualTo(Assigners.DEFAULT);
    assertThat(Assigners.byName(Assigners.DEFAULT)).isInstanceOf(BalancedAssigner.class);
    assertThat(Assigners.names()).doesNotContain("rendezvous");
    assertThat(Assigners.byName("rendezvous").name()).isEqualTo("rendezvous");
  }
}
