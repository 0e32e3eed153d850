package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {

  private static Table table(Object... memberThenUnits) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (int i = 0; i < memberThenUnits.length; i += 2) {
      m.put((String) memberThenUnits[i], List.of(((String) memberThenUnits[i + 1]).isEmpty() ? new String[0] : ((String) memberThenUnits[i + 1]).split(",")));
    }
    return Table.of(m);
  }

  /** Asserts how many units moved from {@code before} to {@code after} and how few had to. */
  private static void assertMoves(Table before, Table after, long moved, long optimum) {
    assertThat(Metrics.moved(before, after)).as("moved").isEqualTo(moved);
    assertThat(Metrics.optimum(before, after)).as("optimum").isEqualTo(optimum);
  }

  @Test
  void maxOverCeilIsTheWorstExcessOverTheRoundedUpWeightedShare() {
    // 6 units, weights 1, 2, 1: shares 1.5, 3, 1.5, bounds 2, 3, 2
    List<Member> ms = List.of(Member.of("a"), Member.of("b", 2), Member.of("c"));
    assertThat(Metrics.maxOverCeil(table("a", "u1,u2", "b", "u3,u4,u5", "c", "u6"), ms)).isEqualTo(0);
    assertThat(Metrics.maxOverCeil(table("a", "u1", "b", "u3,u4,u5", "c", "u6,u2"), ms)).isEqualTo(0);
    assertThat(Metrics.maxOverCeil(table("a", "u1,u2,u3", "b", "u4,u5", "c", "u6"), ms)).isEqualTo(1);
    assertThat(Metrics.maxOverCeil(table("a", "u1,u2", "b", "u3,u4", "c", "u5,u6"), ms)).isEqualTo(0);
    assertThat(Metrics.maxOverCeil(table("a", "u1", "b", "u3,u4", "c", "u5,u6"), ms)).isEqualTo(0); // 5 units: 2, 3, 2
    assertThat(Metrics.maxOverCeil(table("a", "", "b", "u1"), List.of(Member.of("a", 0), Member.of("b", 0))))
        .isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aMinimalLeaveMovesExactlyTheOptimum() {
    Table before = table("a", "u1,u2,u3", "b", "u4,u5", "c", "u6");
    Table after = table("a", "u1,u2,u3,u4", "c", "u6,u5");
    assertMoves(before, after, 2, 2);
    assertThat(Metrics.ratio(2, 2)).isEqualTo(1.0);
  }

  @Test
  void aGratuitousMoveCountsButTheOptimumDoesNot() {
    Table before = table("a", "u1,u2,u3", "b", "u4,u5", "c", "u6");
    Table after = table("a", "u1,u2,u4", "c", "u6,u5,u3");
    assertMoves(before, after, 3, 2);
  }

  @Test
  void aJoinsOptimumIsWhatTheNewcomerTakes() {
    Table before = table("a", "u1,u2,u3", "b", "u4,u5,u6");
    Table after = table("a", "u1,u2", "b", "u4,u5", "n", "u3,u6");
    assertMoves(before, after, 2, 2);
  }

  @Test
  void unitsThatCameOrWentOrWereUnassignedBeforeDoNotCount() {
    Table before = Table.of(Map.of("a", List.of("u1", "u2"), "b", List.of("u3")), List.of("u9"));
    Table after = Table.of(Map.of("a", List.of("u1", "u9", "new"), "b", List.of()), List.of("u3"));
    // u2 is gone, new and u9 (unassigned before) do not count; u3 lost its owner: moved
    assertThat(Metrics.moved(before, after)).isEqualTo(1);
  }

  @Test
  void nothingToMoveGivesNoRatioUnlessSomethingMoved() {
    assertThat(Metrics.ratio(0, 0)).isNaN();
    assertThat(Metrics.ratio(3, 0)).isInfinite().isPositive();
    assertThat(AssignReport.fmt(Metrics.ratio(0, 0), 4)).isEqualTo("-");
    assertThat(AssignReport.fmt(Metrics.ratio(3, 0), 4)).isEqualTo("inf");
  }

  @Test
  void maxOverIdealUsesAffinity() {
    Table t = table("a", "u1,u2", "b", "u3,u4", "z", "");
    List<Member> ms = List.of(Member.of("a", 1), Member.of("b", 3), Member.of("z", 0));
    // ideal: a = 4 * 1/4 = 1, b = 3 → a is at 2.0
    assertThat(Metrics.maxOverIdeal(t, ms)).isEqualTo(2.0);
    assertThat(Metrics.maxOverIdeal(table("a", "u1,u2", "b", "u3,u4"), List.of(Member.of("a"), Member.of("b")))).isEqualTo(1.0);
  }

  @Test
  void validateFindsBrokenTables() {
    List<Member> ms = List.of(Member.of("a"), Member.of("b"));
    Metrics.validate(table("a", "u1", "b", "u2"), ms, List.of("u1", "u2"));
    assertThatThrownBy(() -> Metrics.validate(table("a", "u1", "b", ""), ms, List.of("u1", "u2")))
        .hasMessageContaining("holds 1 units, expected 2");
    assertThatThrownBy(() -> Metrics.validate(table("a", "u1", "b", "u3"), ms, List.of("u1", "u2")))
        .hasMessageContaining("'u2' is missing");
    assertThatThrownBy(() -> Metrics.validate(table("a", "u1", "x", "u2"), ms, List.of("u1", "u2")))
        .hasMessageContaining("unknown member 'x'");
    assertThatThrownBy(() -> Metrics.validate(table("a", "u1,u2"), ms, List.of("u1", "u2")))
        .hasMessageContaining("member 'b' is not listed");
  }
}
