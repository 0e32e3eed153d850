package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.allot.bench.AssignBench.Options;
import io.allot.bench.AssignBench.Report;
import io.allot.bench.AssignBench.Row;
import io.allot.core.assign.Assigner;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class AssignBenchTest {
  private static final int N = 3_000;
  private static Report report;
  private static String table;
  private static String progress;

  @BeforeAll
  static void runBaselines() {
    AssignBench.warmupMillis = 50; // tests check numbers, not speed
    Options o = Options.parse("--strategies", "modulo,naive-rendezvous", "--sizes", "3000", "--members", "3,10", "--repeat", "2");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    report = AssignBench.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    table = out.toString(StandardCharsets.UTF_8);
    progress = err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void oneRowPerStrategyAndCellInOrder() {
    assertThat(report.rows()).extracting(r -> r.strategy() + "@" + r.m())
        .containsExactly("modulo@3", "naive-rendezvous@3", "modulo@10", "naive-rendezvous@10");
    assertThat(report.rows()).allMatch(Row::ok);
    assertThat(report.rows()).allMatch(r -> r.n() == N);
  }

  @Test
  void moduloMovesAlmostEverything() {
    for (int m : List.of(3, 10)) {
      Row r = report.row("modulo", N, m);
      // leave: a unit stays only if both moduli pick the same member, about 1/M of them
      assertThat((double) r.leaveMoved() / N).isCloseTo((m - 1.0) / m, within(0.05));
      assertThat((double) r.joinMoved() / N).isCloseTo(m / (m + 1.0), within(0.05));
      assertThat(r.leaveRatio()).isGreaterThan(1.5);
      assertThat(r.churnMoved()).isZero(); // stateless per unit
      assertThat(r.fullVsModulo()).isEqualTo(1.0);
      assertThat(r.check()).isEqualTo("n/a");
    }
  }

  @Test
  void naiveRendezvousMovesOnlyWhatItMust() {
    for (int m : List.of(3, 10)) {
      Row r = report.row("naive-rendezvous", N, m);
      assertThat(r.leaveRatio()).isEqualTo(1.0);
      assertThat(r.joinRatio()).isEqualTo(1.0);
      assertThat(r.leaveOptimum()).isPositive();
      assertThat(r.joinOptimum()).isPositive();
      assertThat(r.churnReplaced()).isEqualTo(N / 100);
      assertThat(r.churnSurvivors()).isEqualTo(N - N / 100);
      assertThat(r.churnMoved()).isZero();
      assertThat(r.churnMovedPercent()).isEqualTo(0.0);
      assertThat(r.fullVsModulo()).isPositive().isFinite();
    }
  }

  @Test
  void maxOverIdealMatchesTheTable() {
    for (int m : List.of(3, 10)) {
      Scenario sc = Scenario.of(N, m);
      Table t = new NaiveRendezvousAssigner().assign(sc.members(), sc.units());
      int max = t.loads().values().stream().mapToInt(Integer::intValue).max().orElseThrow();
      assertThat(report.row("naive-rendezvous", N, m).maxOverIdeal()).isCloseTo(max / ((double) N / m), within(1e-12));
      assertThat(report.row("naive-rendezvous", N, m).maxOverIdeal()).isGreaterThanOrEqualTo(1.0);
    }
  }

  @Test
  void timesAreMeasured() {
    for (Row r : report.rows()) {
      assertThat(r.fullSamples()).isEqualTo(2);
      assertThat(r.updateSamples()).isEqualTo(2);
      assertThat(r.fullNanosPerUnit()).isPositive().isFinite();
      assertThat(r.leaveMillis()).isPositive().isFinite();
      assertThat(r.joinMillis()).isPositive().isFinite();
      assertThat(r.churnMillis()).isPositive().isFinite();
      assertThat(r.totalSeconds()).isPositive();
    }
    assertThat(report.totalSeconds()).isPositive();
  }

  @Test
  void tableIsAlignedAndEndsWithTheEnvironment() {
    List<String> lines = table.lines().toList();
    assertThat(lines).hasSize(1 + report.rows().size() + 1);
    assertThat(lines.get(0)).startsWith("strategy").contains("max/ideal", "leave/opt", "join/opt", "churn%", "ns/unit", "xmodulo");
    int width = lines.get(0).length();
    for (String l : lines.subList(1, lines.size() - 1)) {
      assertThat(l).hasSize(width);
      // numeric columns are right-aligned under their headings
      assertThat(l.indexOf("  3000")).isEqualTo(lines.get(0).indexOf("  N") - 3);
    }
    assertThat(lines.get(lines.size() - 1)).startsWith("JVM ").contains("cores", "max heap", "MiB");
    assertThat(table).doesNotContain("warming up");
    assertThat(progress).contains("warming up modulo", "[4/4] naive-rendezvous N=3000 M=10");
  }

  @Test
  @SuppressWarnings("unchecked")
  void jsonIsWellFormedAndHoldsEveryRow() {
    String json = report.json();
    assertThat(json.chars().filter(c -> c == '{').count()).isEqualTo(json.chars().filter(c -> c == '}').count());
    assertThat(json.chars().filter(c -> c == '[').count()).isEqualTo(json.chars().filter(c -> c == ']').count());
    Map<String, Object> doc = (Map<String, Object>) MiniJson.parse(json);
    assertThat(doc).containsKeys("options", "environment", "rows", "totalSeconds");
    List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("rows");
    assertThat(rows).hasSize(report.rows().size());
    for (int i = 0; i < rows.size(); i++) {
      Map<String, Object> j = rows.get(i);
      Row r = report.rows().get(i);
      assertThat(j.get("strategy")).isEqualTo(r.strategy());
      assertThat(j.get("n")).isEqualTo((double) r.n());
      assertThat(j.get("m")).isEqualTo((double) r.m());
      assertThat(((Map<String, Object>) j.get("leave")).get("moved")).isEqualTo((double) r.leaveMoved());
      assertThat(((Map<String, Object>) j.get("churn")).get("othersMoved")).isEqualTo((double) r.churnMoved());
    }
    assertThat(((Map<String, Object>) rows.get(1).get("leave")).get("ratio")).isEqualTo(1.0);
    Map<String, Object> env = (Map<String, Object>) doc.get("environment");
    assertThat((Double) env.get("cores")).isPositive();
  }

  @Test
  void jsonOptionPrintsJsonInsteadOfTheTable() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Options o = Options.parse("--json", "--strategies", "modulo", "--sizes", "200", "--members", "2", "--repeat", "1");
    AssignBench.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), null);
    String s = out.toString(StandardCharsets.UTF_8);
    assertThat(s).startsWith("{").doesNotContain("JVM OpenJDK");
    MiniJson.parse(s);
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
  void aFailingStrategyGetsAnErrorRowAndTheOthersGoOn() {
    for (String phase : List.of("full", "join", "drop")) {
      Function<String, Assigner> resolver = name -> name.equals("seed-ring") ? new Failing(phase) : Strategies.byName(name);
      Options o = Options.parse("--strategies", "seed-ring,naive-rendezvous", "--sizes", "500", "--members", "3", "--repeat", "1");
      List<String> lines = new ArrayList<>();
      Report r = AssignBench.run(o, resolver, lines::add);
      Row bad = r.row("seed-ring", 500, 3);
      assertThat(bad.ok()).isFalse();
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
      Map<?, ?> doc = (Map<?, ?>) MiniJson.parse(r.json());
      Map<?, ?> row = (Map<?, ?>) ((List<?>) doc.get("rows")).get(0);
      assertThat(row.get("ok")).isEqualTo(false);
      assertThat(row.get("error")).isEqualTo(bad.error());
    }
  }

  @Test
  void moduloIsTimedForTheRatioEvenWhenNotListed() {
    Report r = AssignBench.run(Options.parse("--strategies", "naive-rendezvous", "--sizes", "500", "--members", "3", "--repeat", "1"), (PrintStream) null, null);
    assertThat(r.rows()).hasSize(1);
    assertThat(r.rows().get(0).fullVsModulo()).isPositive().isFinite();
  }

  // ----------------------------------------------------------------------------------- options

  @Test
  void defaultsAndQuickGrid() {
    Options d = Options.parse();
    assertThat(d.sizes()).containsExactly(1_000, 100_000, 1_000_000);
    assertThat(d.members()).containsExactly(3, 10, 100, 1_000);
    assertThat(d.strategies()).isEqualTo(Strategies.all()).contains("rendezvous-unbounded", "modulo", "naive-rendezvous");
    assertThat(d.repeat()).isZero();
    assertThat(d.json()).isFalse();
    Options q = Options.parse("--quick", "--json");
    assertThat(q.sizes()).containsExactly(1_000, 10_000);
    assertThat(q.members()).containsExactly(3, 10, 100);
    assertThat(q.json()).isTrue();
    Options x = Options.parse("--quick", "--sizes=1e3,10^4,1_000", "--members", "2", "--strategies", " Modulo ,modulo", "--repeat", "4");
    assertThat(x.sizes()).containsExactly(1_000, 10_000);
    assertThat(x.members()).containsExactly(2);
    assertThat(x.strategies()).containsExactly("modulo");
    assertThat(x.repeat()).isEqualTo(4);
  }

  @Test
  void badOptionsAreRejectedClearly() {
    assertThatThrownBy(() -> Options.parse("--fast")).isInstanceOf(IllegalArgumentException.class).hasMessage("unknown option '--fast'");
    assertThatThrownBy(() -> Options.parse("--sizes", "ten")).hasMessage("--sizes: 'ten' is not a whole number");
    assertThatThrownBy(() -> Options.parse("--sizes", "1000,,2000")).hasMessage("--sizes: empty item in '1000,,2000'");
    assertThatThrownBy(() -> Options.parse("--sizes", "0")).hasMessageStartingWith("--sizes: 0 is out of range");
    assertThatThrownBy(() -> Options.parse("--sizes", "1e12")).hasMessage("--sizes: 1e12 is too large");
    assertThatThrownBy(() -> Options.parse("--members", "1")).hasMessageStartingWith("--members: 1 is out of range").hasMessageContaining("one of them leaves");
    assertThatThrownBy(() -> Options.parse("--repeat", "0")).hasMessageStartingWith("--repeat: 0 is out of range");
    assertThatThrownBy(() -> Options.parse("--repeat")).hasMessage("--repeat needs a value");
    assertThatThrownBy(() -> Options.parse("--sizes", "--json")).hasMessage("--sizes needs a value");
    assertThatThrownBy(() -> Options.parse("--json=yes")).hasMessage("--json takes no value");
    assertThatThrownBy(() -> Options.parse("--strategies", "rendezvous,consistent"))
        .hasMessageStartingWith("--strategies: unknown strategy 'consistent'; choose from rendezvous, rendezvous-unbounded");
  }

  @Test
  void mainReportsBadUsageWithExitCode2() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = AssignBench.execute(new String[] {"--members", "1"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("error: --members: 1 is out of range").contains("usage: AssignBench");
    out.reset();
    assertThat(AssignBench.execute(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: AssignBench");
  }

  @Test
  void medianOfEvenAndOddCounts() {
    assertThat(AssignBench.median(new long[] {5, 1, 3})).isEqualTo(3.0);
    assertThat(AssignBench.median(new long[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(AssignBench.median(new long[] {7})).isEqualTo(7.0);
  }
}
