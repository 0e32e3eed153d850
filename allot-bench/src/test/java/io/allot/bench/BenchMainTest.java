package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** The command line: options of {@code assign}, exit codes, and the JSON of a whole quick run. */
class BenchMainTest {

  @Test
  void quickJsonRunParsesAndHoldsTheQuickGrid() throws Exception {
    AssignRunner.warmupMillis = 50; // the figures are not looked at, only the document
    BenchRun r = BenchRun.of("assign", "--quick", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertThat(doc.get("options").get("quick").asBoolean()).isTrue();
    assertThat(doc.get("options").get("sizes")).extracting(JsonNode::asInt).containsExactly(1_000, 10_000);
    assertThat(doc.get("options").get("members")).extracting(JsonNode::asInt).containsExactly(3, 10, 100);
    int strategies = Strategies.all().size();
    assertThat(doc.get("options").get("ratios")).extracting(JsonNode::asInt).containsExactly(2, 5, 20);
    int cells = 2 * 3 + 3 * 3; // the grid, then N/M = 2, 5, 20 for each M
    assertThat(doc.get("rows")).hasSize(cells * strategies);
    for (JsonNode row : doc.get("rows")) {
      assertThat(row.get("ok").asBoolean()).as(row.toString()).isTrue();
      assertThat(row.get("full").get("nsPerUnit").asDouble()).isPositive();
    }
    assertThat(r.err()).contains("warming up balanced", "[" + cells * strategies + "/" + cells * strategies + "]");
  }

  /** Runs a bad command line: exit code 2, nothing on stdout, stderr begins with the message, then the usage. */
  private static void assertBadUsage(String message, String usage, String... args) {
    BenchRun r = BenchRun.of(args);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith(message).contains("Usage: " + usage);
  }

  @Test
  void aBadOptionExitsWith2AndNamesIt() {
    assertBadUsage("Unknown option: '--fast'", "allot bench assign", "assign", "--fast");
    assertBadUsage("--members: 1 is out of range", "allot bench assign", "assign", "--members", "1");
    assertBadUsage("--members must be between 1 and 100000, got 0", "allot bench distributor", "distributor", "--members", "0");
    assertBadUsage("--store: memory cannot be shared by processes", "allot bench failover", "failover", "--store", "memory:");
    assertBadUsage("--allot-jar: /nonexistent/allot.jar is not a file", "allot bench failover",
        "failover", "--allot-jar", "/nonexistent/allot.jar");
    assertBadUsage("Missing required subcommand: choose one of: assign, distributor, failover, handoff, jobs, route, jmh", "allot bench");
  }

  @Test
  void everyBenchTakesTheOneStoreOptionAndABadStoreIsBadUsageNamingIt() {
    for (String bench : List.of("distributor", "failover", "handoff", "route")) {
      BenchRun help = BenchRun.of(bench, "--help");
      assertThat(help.out().replaceAll("\\s+", " ")).as(bench).contains("-store, --store=URI").contains("Env STORE.");
    }
    BenchRun r = BenchRun.of("handoff", "-store", "nosuch://x");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("'nosuch://x'").contains("Usage: allot bench handoff");
  }

  @Test
  void helpExitsWith0() {
    BenchRun help = BenchRun.of("assign", "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("Usage: allot bench assign", "--quick", "--json", "--strategies", "rendezvous-unbounded",
        "--sizes", "--members", "--ratios", "--repeat");
  }

  @Test
  void defaultsAndQuickGrid() {
    AssignOptions d = AssignCommand.parse();
    assertThat(d.sizes()).containsExactly(1_000, 100_000, 1_000_000);
    assertThat(d.members()).containsExactly(3, 10, 100, 1_000);
    assertThat(d.strategies()).isEqualTo(Strategies.all()).contains("rendezvous-unbounded", "modulo", "naive-rendezvous");
    assertThat(d.repeat()).isZero();
    assertThat(d.json()).isFalse();
    assertThat(d).isEqualTo(AssignOptions.defaults());
    AssignOptions q = AssignCommand.parse("--quick", "--json");
    assertThat(q.sizes()).containsExactly(1_000, 10_000);
    assertThat(q.members()).containsExactly(3, 10, 100);
    assertThat(q.json()).isTrue();
    AssignOptions x = AssignCommand.parse(
        "--quick", "--sizes=1e3,10^4,1_000", "--members", "2", "--strategies", " Modulo ,modulo", "--repeat", "4");
    assertThat(x.sizes()).containsExactly(1_000, 10_000);
    assertThat(x.members()).containsExactly(2);
    assertThat(x.strategies()).containsExactly("modulo");
    assertThat(x.repeat()).isEqualTo(4);
    assertThat(AssignCommand.parse("--sizes", "10", "--sizes", "20").sizes()).containsExactly(10, 20);
    assertThat(d.ratios()).containsExactly(2, 5, 20);
    assertThat(q.ratios()).containsExactly(2, 5, 20);
    assertThat(x.ratios()).isEmpty(); // --sizes alone: no small shapes
    AssignOptions r = AssignCommand.parse("--ratios", "1,2,2", "--members", "10");
    assertThat(r.sizes()).isEmpty();
    assertThat(r.ratios()).containsExactly(1, 2);
    assertThat(r.cells()).containsExactly(new AssignOptions.Cell(10, 10), new AssignOptions.Cell(20, 10));
    assertThat(d.strategies().get(0)).isEqualTo("balanced");
  }

  @Test
  void badOptionsAreRejectedClearly() {
    assertThatThrownBy(() -> AssignCommand.parse("--fast")).isInstanceOf(ParameterException.class)
        .hasMessage("Unknown option: '--fast'");
    assertThatThrownBy(() -> AssignCommand.parse("--sizes", "ten"))
        .hasMessage("Invalid value for option '--sizes' (N): 'ten' is not a whole number");
    assertThatThrownBy(() -> AssignCommand.parse("--sizes", "1000,,2000"))
        .hasMessage("Invalid value for option '--sizes' (N): '' is not a whole number");
    assertThatThrownBy(() -> AssignCommand.parse("--sizes", "0")).hasMessageStartingWith("--sizes: 0 is out of range");
    assertThatThrownBy(() -> AssignCommand.parse("--sizes", "1e12"))
        .hasMessage("Invalid value for option '--sizes' (N): 1e12 is too large");
    assertThatThrownBy(() -> AssignCommand.parse("--members", "1"))
        .hasMessageStartingWith("--members: 1 is out of range").hasMessageContaining("one of them leaves");
    assertThatThrownBy(() -> AssignCommand.parse("--repeat", "0")).hasMessageStartingWith("--repeat: 0 is out of range");
    assertThatThrownBy(() -> AssignCommand.parse("--repeat")).hasMessageContaining("'--repeat'");
    assertThatThrownBy(() -> AssignCommand.parse("--sizes", "--json")).hasMessageContaining("'--sizes'");
    assertThatThrownBy(() -> AssignCommand.parse("--json=yes")).hasMessageContaining("'--json'");
    assertThatThrownBy(() -> AssignCommand.parse("--strategies", "rendezvous,consistent"))
        .hasMessageStartingWith("--strategies: unknown strategy 'consistent'; choose from balanced, rendezvous-unbounded, "
            + "seed-ring, rendezvous, modulo");
    assertThatThrownBy(() -> AssignCommand.parse("--ratios", "0")).hasMessageStartingWith("--ratios: 0 is out of range");
    assertThatThrownBy(() -> AssignCommand.parse("--ratios", "20001", "--members", "1000"))
        .hasMessageStartingWith("--ratios: 20001 is out of range");
  }

  @Test
  void jmhGetsEveryArgumentInOrder() {
    JmhCommand jmh = new JmhCommand();
    new CommandLine(jmh).parseArgs("AssignJmh", "-f", "1", "-wi", "3", "-i", "5", "-p", "n=1000", "-h", "-x");
    assertThat(jmh.args).isEqualTo(List.of("AssignJmh", "-f", "1", "-wi", "3", "-i", "5", "-p", "n=1000", "-h", "-x"));
  }
}
