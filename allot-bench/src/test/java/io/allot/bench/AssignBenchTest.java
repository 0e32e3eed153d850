package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.allot.bench.AssignRow.Measured;
import io.allot.core.assign.Assigner;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The runner and its report (table and JSON), on the baselines: fast and predictable. */
class AssignBenchTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int N = 3_000;
  private static AssignReport report;
  private static String table;
  private static String progress;

  @BeforeAll
  static void runBaselines() {
    AssignRunner.warmupMillis = 50; // tests check numbers, not speed
    AssignOptions o = AssignCommand.parse("--strategies", "modulo,naive-rendezvous", "--sizes", "3000", "--members", "3,10", "--repeat", "2");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    report = AssignRunner.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    table = out.toString(StandardCharsets.UTF_8);
    progress = err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void oneRowPerStrategyAndCellInOrder() {
    assertThat(report.rows()).extracting(r -> r.strategy() + "@" + r.m())
        .containsExactly("modulo@3", "naive-rendezvous@3", "modulo@10", "naive-rendezvous@10");
    assertThat(report.rows()).allMatch(AssignRow::ok);
    assertThat(report.rows()).allMatch(r -> r.n() == N);
  }

  @Test
  void moduloMovesAlmostEverything() {
    for (int m : List.of(3, 10)) {
      AssignRow r = report.row("modulo", N, m);
      Measured x = r.measured();
      // leave: a unit stays only if both moduli pick the same member, about 1/M of them
      assertThat((double) x.leave().moved() / N).isCloseTo((m - 1.0) / m, within(0.05));
      assertThat((double) x.join().moved() / N).isCloseTo(m / (m + 1.0), within(0.05));
      assertThat(x.leave().ratio()).isGreaterThan(1.5);
      assertThat(x.churn().othersMoved()).isZero(); // stateless per unit
      assertThat(r.fullVsModulo()).isEqualTo(1.0);
      assertThat(x.check()).isEqualTo("n/a");
    }
  }

  @Test
  void naiveRendezvousMovesOnlyWhatItMust() {
    for (int m : List.of(3, 10)) {
      AssignRow r = report.row("naive-rendezvous", N, m);
      Measured x = r.measured();
      assertThat(x.leave().ratio()).isEqualTo(1.0);
      assertThat(x.join().ratio()).isEqualTo(1.0);
      assertThat(x.leave().optimum()).isPositive();
      assertThat(x.join().optimum()).isPositive();
      assertThat(x.churn().replaced()).isEqualTo(N / 100);
      assertThat(x.churn().others()).isEqualTo(N - N / 100);
      assertThat(x.churn().othersMoved()).isZero();
      assertThat(x.churn().othersMovedPercent()).isEqualTo(0.0);
      assertThat(x.added().othersMoved()).isZero();
      assertThat(x.removed().othersMoved()).isZero();
      assertThat(r.fullVsModulo()).isPositive().isFinite();
    }
  }

  @Test
  void maxOverIdealMatchesTheTable() {
    for (int m : List.of(3, 10)) {
      Scenario sc = Scenario.of(N, m);
      Table t = new NaiveRendezvousAssigner().assign(sc.members(), sc.units());
      int max = t.loads().values().stream().mapToInt(Integer::intValue).max().orElseThrow();
      double maxOverIdeal = report.row("naive-rendezvous", N, m).measured().maxOverIdeal();
      assertThat(maxOverIdeal).isCloseTo(max / ((double) N / m), within(1e-12)).isGreaterThanOrEqualTo(1.0);
    }
  }

  @Test
  void timesAreMeasured() {
    for (AssignRow r : report.rows()) {
      Measured x = r.measured();
      assertThat(x.fullSamples()).isEqualTo(2);
      assertThat(x.updateSamples()).isEqualTo(2);
      assertThat(r.fullNanosPerUnit()).isPositive().isFinite();
      assertThat(x.leave().updateMillis()).isPositive().isFinite();
      assertThat(x.join().updateMillis()).isPositive().isFinite();
      assertThat(x.churn().updateMillis()).isPositive().isFinite();
      assertThat(x.added().updateMillis()).isPositive().isFinite();
      assertThat(x.removed().updateMillis()).isPositive().isFinite();
      assertThat(r.totalSeconds()).isPositive();
    }
    assertThat(report.totalSeconds()).isPositive();
  }

  @Test
  void tableIsAlignedAndEndsWithTheEnvironment() {
    List<String> lines = table.lines().toList();
    assertThat(lines).hasSize(1 + report.rows().size() + 1);
    assertThat(lines.get(0)).startsWith("strategy  ").endsWith("upd=full  total s").containsSubsequence(
        "  N", "  M", "max/ideal", "max-ceil", "leave/opt", "join/opt", "repl%", "add%", "rm%", "ns/unit", "xmodulo",
        "leave ms", "join ms", "repl ms", "add ms", "rm ms", "upd=full", "total s");
    int width = lines.get(0).length();
    for (String l : lines.subList(1, lines.size() - 1)) {
      assertThat(l).hasSize(width);
      // numeric columns are right-aligned under their headings
      assertThat(l.indexOf("  3000")).isEqualTo(lines.get(0).indexOf("  N") - 3);
    }
    AssignRow naive = report.row("naive-rendezvous", N, 3);
    assertThat(lines.get(2)).startsWith(String.format(java.util.Locale.ROOT,
        "naive-rendezvous  3000   3  %9.4f", naive.measured().maxOverIdeal()));
    assertThat(lines.get(2).split(" +")).contains(
        String.format(java.util.Locale.ROOT, "%+d", naive.measured().maxOverCeil()), "1.0000", "0.000");
    assertThat(lines.get(2)).endsWith(String.format(java.util.Locale.ROOT, "n/a  %7.2f", naive.totalSeconds()));
    assertThat(lines.get(lines.size() - 1)).startsWith("JVM ").contains("cores", "max heap", "MiB").endsWith(" s");
    assertThat(table).doesNotContain("warming up");
    assertThat(progress).contains("warming up modulo", "[4/4] naive-rendezvous N=3000 M=10");
  }

  @Test
  void jsonHoldsTheOptionsTheEnvironmentAndEveryRow() throws Exception {
    JsonNode doc = JSON.readTree(report.json());
    assertThat(doc.get("benchmark").asText()).isEqualTo("allot bench assign");
    assertThat(doc.get("options").get("sizes").get(0).asInt()).isEqualTo(N);
    assertThat(doc.get("options").get("repeat").asText()).isEqualTo("2");
    assertThat(doc.get("environment").get("cores").asInt()).isPositive();
    assertThat(doc.get("totalSeconds").asDouble()).isPositive();
    JsonNode rows = doc.get("rows");
    assertThat(rows).hasSize(report.rows().size());
    for (int i = 0; i < rows.size(); i++) {
      JsonNode j = rows.get(i);
      AssignRow r = report.rows().get(i);
      assertThat(j.get("strategy").asText()).isEqualTo(r.strategy());
      assertThat(j.get("n").asInt()).isEqualTo(r.n());
      assertThat(j.get("m").asInt()).isEqualTo(r.m());
      assertThat(j.get("ok").asBoolean()).isTrue();
      assertThat(j.has("error")).isFalse();
      assertThat(j.get("leave").get("moved").asLong()).isEqualTo(r.measured().leave().moved());
      assertThat(j.get("join").get("optimum").asLong()).isEqualTo(r.measured().join().optimum());
      assertThat(j.get("churn").get("othersMoved").asLong()).isEqualTo(r.measured().churn().othersMoved());
      assertThat(j.get("add").get("othersMoved").asLong()).isEqualTo(r.measured().added().othersMoved());
      assertThat(j.get("remove").get("replaced").asLong()).isEqualTo(r.measured().removed().replaced());
      assertThat(j.get("maxOverCeil").asLong()).isEqualTo(r.measured().maxOverCeil());
      assertThat(j.get("full").get("samples").asInt()).isEqualTo(2);
      assertThat(j.get("full").get("nsPerUnit").asDouble()).isCloseTo(r.fullNanosPerUnit(), within(0.001));
      assertThat(j.get("updateEqualsFull").asText()).isEqualTo("n/a");
      assertThat(j.get("incremental").asBoolean()).isFalse();
    }
    assertThat(rows.get(1).get("leave").get("ratio").asDouble()).isEqualTo(1.0);
    assertThat(rows.get(1).get("churn").get("othersMovedPercent").asDouble()).isEqualTo(0.0);
  }

  @Test
  void jsonOptionPrintsJsonInsteadOfTheTable() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    AssignOptions o = AssignCommand.parse("--json", "--strategies", "modulo", "--sizes", "200", "--members", "2", "--repeat", "1");
    AssignRunner.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), null);
    String s = out.toString(StandardCharsets.UTF_8);
    assertThat(s).startsWith("{").doesNotContain("JVM OpenJDK");
    assertThat(JSON.readTree(s).get("rows")).hasSize(1);
  }

  /** A strategy that fails at some operation. */
  private static final class Failing implements Assigner {
    private final String phase;

    Failing(String phase) {
      this.phase = phase;
    }

    @Override
    public String name() {
      return "failing";
    }

    @Override
    public Table assign(Collection<Member> members, Collection<String> units, Table previous) {
      if (phase.equals("full")) {
        throw new UnsupportedOperationException("not yet");
      }
      if (phase.equals("join") && members.stream().anyMatch(m -> m.id().equals(Scenario.JOINER))) {
        throw new IllegalStateException(); // no message
      }
      if (phase.equals("drop")) { // loses a unit
        List<String> us = new ArrayList<>(units);
        us.remove(0);
        return new ModuloAssigner().assign(members, us);
      }
      return new ModuloAssigner().assign(members, units);
    }
  }

  @Test
  void aFailingStrategyGetsAnErrorRowAndTheOthersGoOn() throws Exception {
    for (String phase : List.of("full", "join", "drop")) {
      Function<String, Assigner> resolver = name -> name.equals("seed-ring") ? new Failing(phase) : Strategies.byName(name);
      AssignOptions o = AssignCommand.parse("--strategies", "seed-ring,naive-rendezvous", "--sizes", "500", "--members", "3", "--repeat", "1");
      List<String> lines = new ArrayList<>();
      AssignReport r = AssignRunner.run(o, resolver, lines::add);
      AssignRow bad = r.row("seed-ring", 500, 3);
      assertThat(bad.ok()).isFalse();
      assertThat(bad.measured()).isNull();
      assertThat(r.row("naive-rendezvous", 500, 3).ok()).isTrue();
      switch (phase) {
        case "full" -> {
          assertThat(bad.error()).isEqualTo("not yet");
          assertThat(bad.errorPhase()).isEqualTo("full");
          assertThat(r.table()).contains("seed-ring  ").contains("error: not yet");
          assertThat(lines).anyMatch(l -> l.contains("fails during warm-up: not yet"));
        }
        case "join" -> {
          assertThat(bad.error()).isEqualTo("java.lang.IllegalStateException");
          assertThat(bad.errorPhase()).isEqualTo("join");
        }
        default -> assertThat(bad.error()).startsWith("invalid table: it holds 499 units, expected 500");
      }
      JsonNode row = JSON.readTree(r.json()).get("rows").get(0);
      assertThat(row.get("ok").asBoolean()).isFalse();
      assertThat(row.get("error").asText()).isEqualTo(bad.error());
      assertThat(row.get("errorPhase").asText()).isEqualTo(bad.errorPhase());
      assertThat(row.has("leave")).isFalse();
    }
  }

  @Test
  void moduloIsTimedForTheRatioEvenWhenNotListed() {
    AssignReport r = AssignRunner.run(
        AssignCommand.parse("--strategies", "naive-rendezvous", "--sizes", "500", "--members", "3", "--repeat", "1"),
        (PrintStream) null, null);
    assertThat(r.rows()).hasSize(1);
    assertThat(r.rows().get(0).fullVsModulo()).isPositive().isFinite();
  }

  @Test
  void smallShapesRunForEveryMemberCountAndBalancedMeetsItsBounds() {
    AssignOptions o = AssignCommand.parse("--strategies", "balanced", "--ratios", "1,2,5,20", "--members", "3,10", "--repeat", "1");
    assertThat(o.cells()).extracting(c -> c.n() + "/" + c.m())
        .containsExactly("3/3", "10/10", "6/3", "20/10", "15/3", "50/10", "60/3", "200/10");
    AssignReport r = AssignRunner.run(o, Strategies::byName, s -> {});
    assertThat(r.rows()).hasSize(8).allMatch(AssignRow::ok);
    for (AssignRow row : r.rows()) {
      Measured x = row.measured();
      assertThat(x.maxOverCeil()).as("%s", row).isLessThanOrEqualTo(0);
      assertThat(x.leave().moved()).as("%s", row).isEqualTo(x.leave().optimum());
      assertThat(x.join().moved()).as("%s", row).isEqualTo(x.join().optimum());
      assertThat(x.churn().othersMoved()).as("%s", row).isZero(); // equal affinities: nothing else moves
      assertThat(x.added().othersMoved()).as("%s", row).isZero();
      assertThat(x.check()).isEqualTo("ok");
    }
  }

  @Test
  void defaultsAndQuickIncludeTheSmallShapes() {
    assertThat(AssignOptions.defaults().cells()).contains(
        new AssignOptions.Cell(6, 3), new AssignOptions.Cell(5_000, 1_000), new AssignOptions.Cell(20_000, 1_000),
        new AssignOptions.Cell(1_000_000, 1_000));
    assertThat(AssignOptions.quickDefaults().cells()).contains(new AssignOptions.Cell(200, 10), new AssignOptions.Cell(2_000, 100))
        .doesNotContain(new AssignOptions.Cell(100_000, 100)).hasSize(9 + 6);
    // explicit sizes alone: no small shapes
    assertThat(AssignCommand.parse("--sizes", "100", "--members", "2").cells()).containsExactly(new AssignOptions.Cell(100, 2));
  }

  @Test
  void medianOfEvenAndOddCounts() {
    assertThat(Repeats.median(new long[] {5, 1, 3})).isEqualTo(3.0);
    assertThat(Repeats.median(new long[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(Repeats.median(new long[] {7})).isEqualTo(7.0);
  }

  @Test
  void fixedRepeatsRunExactlyThatOften() {
    int[] calls = {0};
    Repeats.Timed t = Repeats.time(() -> {
      calls[0]++;
      return Table.EMPTY;
    }, 3, false);
    assertThat(calls[0]).isEqualTo(3);
    assertThat(t.samples()).isEqualTo(3);
    assertThat(t.last()).isSameAs(Table.EMPTY);
  }
}
