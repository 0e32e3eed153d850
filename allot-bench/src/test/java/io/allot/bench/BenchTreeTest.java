package io.allot.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Walks {@code allot bench} like {@code CommandTreeTest} walks {@code allot}: every bench prints its help and exits 0,
 * and its summary in {@code allot bench --help} is a whole sentence (the route bench's was cut mid-list).
 */
class BenchTreeTest {

  @Test
  void everyBenchHasAWholeSentenceSummaryAndItsHelpExits0() {
    CommandLine root = new CommandLine(new BenchMain());
    assertThat(root.getSubcommands()).containsKeys("assign", "distributor", "failover", "handoff", "jobs", "route",
        "jmh");
    root.getSubcommands().forEach((name, sub) -> {
      String[] description = sub.getCommandSpec().usageMessage().description();
      assertThat(description).as(name).isNotEmpty();
      assertThat(description[0].strip()).as("summary of allot bench " + name).endsWith(".");
      if (name.equals("jmh")) {
        return; // every argument goes to JMH, whose --help ends the JVM: its summary is what is checked
      }
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code = BenchMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), name, "--help");
      assertThat(code).as(name + ": " + err).isZero();
      assertThat(out.toString()).as(name).startsWith("Usage: allot bench " + name);
    });
  }
}
