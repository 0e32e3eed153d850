package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.assign.Table;
import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselinesTest {
  private final Scenario sc = Scenario.of(3_000, 7);

  @Test
  void moduloIsOneHashModuloTheSortedMembers() {
    Table t = new ModuloAssigner().assign(sc.members(), sc.units());
    for (String u : sc.units()) {
      int i = (int) Math.floorMod(Hashing.hash64(u), 7L);
      assertThat(t.ownerOf(u)).contains(sc.members().get(i).id());
    }
  }

  @Test
  void naiveRendezvousPicksTheHighestScore() {
    Table t = new NaiveRendezvousAssigner().assign(sc.members(), sc.units());
    for (String u : sc.units().subList(0, 500)) {
      String best = null;
      double bestScore = Double.NEGATIVE_INFINITY;
      for (Member m : sc.members()) {
        double score = -1.0 / Math.log(Hashing.unitInterval(Hashing.mix64(Hashing.hash64(u) ^ Hashing.hash64(m.id()))));
        if (score >= bestScore) {
          bestScore = score;
          best = m.id();
        }
      }
      assertThat(t.ownerOf(u)).contains(best);
    }
  }

  @Test
  void baselinesAreValidAndIgnoreInputOrder() {
    List<Member> ms = new ArrayList<>(sc.members());
    List<String> us = new ArrayList<>(sc.units());
    Collections.reverse(ms);
    Collections.reverse(us);
    for (var a : List.of(new ModuloAssigner(), new NaiveRendezvousAssigner())) {
      Table t = a.assign(sc.members(), sc.units());
      Metrics.validate(t, sc.members(), sc.units());
      assertThat(a.assign(ms, us).byMember().keySet()).isEqualTo(t.byMember().keySet());
      t.byMember().forEach((m, units) -> assertThat(a.assign(ms, us).unitsOf(m)).containsExactlyInAnyOrderElementsOf(units));
    }
  }

  @Test
  void affinityZeroGetsNothingAndWeightsCountForRendezvous() {
    List<Member> ms = List.of(Member.of("a", 0), Member.of("b", 1), Member.of("c", 3));
    Table naive = new NaiveRendezvousAssigner().assign(ms, sc.units());
    assertThat(naive.unitsOf("a")).isEmpty();
    assertThat((double) naive.unitsOf("c").size() / naive.unitsOf("b").size()).isBetween(2.6, 3.4);
    assertThat(new ModuloAssigner().assign(ms, sc.units()).unitsOf("a")).isEmpty();
    Table none = new ModuloAssigner().assign(List.of(Member.of("a", 0)), List.of("u2", "u1"));
    assertThat(none.unassigned()).containsExactly("u1", "u2");
    assertThat(new NaiveRendezvousAssigner().assign(List.of(Member.of("a", 0)), List.of("u2", "u1")).unassigned())
        .containsExactly("u1", "u2");
  }

  @Test
  void badInputIsRejectedLikeAnyStrategy() {
    assertThatThrownBy(() -> new ModuloAssigner().assign(List.of(Member.of("a")), List.of("u", "u")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> new NaiveRendezvousAssigner().assign(List.of(Member.of("a"), Member.of("a")), List.of("u")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
  }

  @Test
  void strategiesKnowBuiltInsAndBaselines() {
    assertThat(Strategies.all())
        .contains("rendezvous", "rendezvous-unbounded", "balanced", "seed-ring", "modulo", "naive-rendezvous");
    assertThat(Strategies.byName(" Modulo ")).isInstanceOf(ModuloAssigner.class);
    assertThat(Strategies.hasIncrementalUpdate(new ModuloAssigner())).isFalse();
    assertThatThrownBy(() -> Strategies.byName("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown strategy 'nope'")
        .hasMessageContaining("naive-rendezvous");
  }
}
