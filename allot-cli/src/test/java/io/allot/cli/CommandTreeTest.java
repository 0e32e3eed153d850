package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Walks the whole {@code allot} command tree, in-process: every command and subcommand prints its help and exits 0
 * (before any required option is checked), has a whole-sentence summary, takes each option with one and with two
 * dashes, and prints allot's version for {@code -V}.
 */
class CommandTreeTest {
  /** Every command of the tree, as the words that name it ({@code []} is {@code allot} itself). */
  private static List<List<String>> commands() {
    CommandLine root = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), k -> null);
    List<List<String>> out = new ArrayList<>();
    walk(root, List.of(), out);
    return out;
  }

  private static void walk(CommandLine cl, List<String> path, List<List<String>> out) {
    out.add(path);
    cl.getSubcommands().forEach((name, sub) ->
        walk(sub, Stream.concat(path.stream(), Stream.of(name)).toList(), out));
  }

  private static CommandLine at(List<String> path) {
    CommandLine cl = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), k -> null);
    for (String name : path) {
      cl = cl.getSubcommands().get(name);
    }
    return cl;
  }

  private static CliRun run(List<String> path, String... more) {
    return CliRun.of(Map.of(), Stream.concat(path.stream(), Stream.of(more)).toArray(String[]::new));
  }

  @Test
  void theTreeIsWhatTheReadmeNames() {
    assertThat(commands()).contains(List.of("job", "enqueue"), List.of("task", "create"), List.of("route", "weights"),
        List.of("units", "add"), List.of("units", "remove"), List.of("units", "list"),
        List.of("server"), List.of("worker"), List.of("help")).hasSizeGreaterThan(15);
  }

  @Test
  void everyHelpFormExits0WithTheUsageBeforeAnyRequiredOptionIsChecked() {
    for (List<String> path : commands()) {
      String name = String.join(" ", Stream.concat(Stream.of("allot"), path.stream()).toList());
      for (String help : new String[] {"--help", "-help", "-h"}) {
        CliRun r = run(path, help);
        assertThat(r.code()).as(name + " " + help + ": " + r.err()).isZero();
        assertThat(r.out()).as(name + " " + help).startsWith("Usage: " + name);
        assertThat(r.err()).as(name + " " + help).isEmpty();
      }
    }
  }

  @Test
  void aParentAloneIsBadInputNamingItsSubcommands() {
    CliRun r = CliRun.of("job");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Usage: allot job")
        .contains("allot: job: name a subcommand: enqueue, stats, retry, ignore, worker, dispatcher, endpoint");
    r = CliRun.of("task");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("allot: task: name a subcommand: create, update, delete, get, list");
  }

  @Test
  void helpNamesAnyCommandOfTheTree() {
    for (List<String> path : commands()) {
      if (path.isEmpty() || path.get(0).equals("help")) {
        continue;
      }
      CliRun r = CliRun.of(Stream.concat(Stream.of("help"), path.stream()).toArray(String[]::new));
      assertThat(r.code()).as("allot help " + path + ": " + r.err()).isZero();
      assertThat(r.out()).as("allot help " + path).isEqualTo(run(path, "--help").out());
    }
    CliRun r = CliRun.of("help", "job", "nosuch");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("job nosuch").contains("enqueue");
  }

  @Test
  void everySummaryIsAWholeSentence() {
    org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
    for (List<String> path : commands()) {
      if (path.isEmpty()) {
        continue;
      }
      CommandLine.Model.UsageMessageSpec usage = at(path).getCommandSpec().usageMessage();
      String[] lines = usage.header().length > 0 ? usage.header() : usage.description();
      soft.assertThat(lines).as(path + ": no summary").isNotEmpty();
      String summary = lines.length == 0 ? "" : lines[0].strip();
      soft.assertThat(summary).as(path + " summary").matches("[A-Z].*\\.");
      // and the parent's command list shows it whole
      String parentHelp = run(path.subList(0, path.size() - 1), "--help").out().replaceAll("\\s+", " ");
      soft.assertThat(parentHelp).as(path + " in its parent's list").contains(summary.replaceAll("\\s+", " "));
    }
    soft.assertAll();
  }

  @Test
  void everyOptionTakesOneAndTwoDashes() {
    for (List<String> path : commands()) {
      for (OptionSpec o : at(path).getCommandSpec().options()) {
        List<String> names = List.of(o.names());
        for (String n : names) {
          if (n.startsWith("--")) {
            assertThat(names).as(path + " " + n).contains(n.substring(1));
          } else if (n.length() > 2) {
            assertThat(names).as(path + " " + n).contains("-" + n);
          }
        }
      }
    }
  }

  @Test
  void everyVersionFormPrintsAllotsVersion() {
    String expected = new Main.Version().getVersion()[0];
    for (List<String> path : commands()) {
      for (String v : new String[] {"-V", "-version", "--version"}) {
        CliRun r = run(path, v);
        assertThat(r.code()).as(path + " " + v + ": " + r.err()).isZero();
        assertThat(r.out().strip()).as(path + " " + v).isEqualTo(expected);
      }
    }
  }

  @Test
  void everyCommandThatReadsTheTableTakesDistributionNamespace() {
    for (List<String> path : List.of(List.of("server"), List.of("worker"), List.of("route"), List.of("task", "list"),
        List.of("task", "get"))) {
      assertThat(at(path).getCommandSpec().findOption("-distribution-namespace")).as(path.toString()).isNotNull();
    }
    CommandLine.Model.CommandSpec route = at(List.of("route")).getCommandSpec();
    assertThat(route.findOption("-table")).isSameAs(route.findOption("--distribution-namespace"));
  }

  /**
   * One placeholder style in every help: an option's parameter is an upper-case word ({@code N}, {@code DURATION},
   * {@code FILE}, {@code URI}, ...), never picocli's {@code <fieldName>}; and an option with a default says it.
   */
  @Test
  void everyOptionHasAnUpperCaseLabelAndStatesItsDefault() {
    org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
    for (List<String> path : commands()) {
      for (OptionSpec o : at(path).getCommandSpec().options()) {
        if (o.usageHelp() || o.versionHelp() || o.hidden()) {
          continue;
        }
        String name = path + " " + o.longestName();
        if (o.arity().max() > 0) {
          soft.assertThat(o.paramLabel()).as(name + " label").matches("[A-Z][A-Z0-9_]*(=[A-Z][A-Z0-9_]*)?");
        }
        String dflt = o.defaultValue();
        boolean isBooleanFalse = (o.type() == boolean.class || o.type() == Boolean.class)
            && (dflt == null || dflt.equals("false"));
        if (dflt != null && !dflt.isEmpty() && !isBooleanFalse) {
          String description = String.join(" ", o.description());
          soft.assertThat(description.contains("${DEFAULT-VALUE}") || description.contains(dflt)
              || description.toLowerCase(java.util.Locale.ROOT).contains("default")).as(name + " states its default "
              + dflt + ": " + description).isTrue();
        }
      }
    }
    soft.assertAll();
  }
}
