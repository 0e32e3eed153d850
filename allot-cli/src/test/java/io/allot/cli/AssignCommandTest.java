package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AssignCommandTest {
  @TempDir Path dir;

  Path file(String name, String content) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, content, StandardCharsets.UTF_8);
    return p;
  }

  /** {@code allot assign --services S --units U more...} with S and U files holding the given lines. */
  CliRun assign(String services, String units, String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of("assign", "--services", file("s", services).toString(), "--units",
        file("u", units).toString()));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(String[]::new));
  }

  @Test
  void seedRingKnownVector() throws IOException {
    CliRun r = assign("service3\nservice1\nservice2\n", "work1\nwork2\nwork3\n", "--strategy", "seed-ring");
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("service1:work2\nservice2:work1\nservice3:work3\n");
  }

  @Test
  void everyStrategyPrintsEveryMemberAndEveryUnitOnce() throws IOException {
    Path s = file("s", "10.0.0.1:80\n10.0.0.2:80\n10.0.0.3:80\n");
    StringBuilder units = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      units.append("unit-").append(i).append('\n');
    }
    Path u = file("u", units.toString());
    for (String strategy : new String[] {"rendezvous", "rendezvous-unbounded", "balanced", "seed-ring"}) {
      CliRun r = CliRun.of("assign", "--strategy", strategy, "--services", s.toString(), "--units", u.toString());
      assertThat(r.code()).as(strategy + ": " + r.err()).isZero();
      String[] lines = r.out().split("\n");
      assertThat(lines).hasSize(3);
      assertThat(lines[0]).startsWith("10.0.0.1:80:");
      int total = 0;
      for (String line : lines) {
        String rest = line.substring("10.0.0.1:80:".length());
        total += rest.isEmpty() ? 0 : rest.split(",").length;
      }
      assertThat(total).as(strategy).isEqualTo(100);
    }
  }

  @Test
  void weightsAndPreviousAreUsed() throws IOException {
    Path s = file("s", "a\nb\nc\n");
    Path u = file("u", "1\n2\n3\n4\n5\n6\n");
    Path w = file("w", "a 0\nb 1\nc 2 3\n");
    CliRun r = CliRun.of("assign", "--strategy", "balanced", "--services", s.toString(), "--units", u.toString(), "--weights", w.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("a:\n");
    Path prev = file("p", r.out());
    CliRun again =
        CliRun.of("assign", "--strategy", "balanced", "--services", s.toString(), "--units", u.toString(), "--weights", w.toString(), "--previous", prev.toString());
    assertThat(again.out()).isEqualTo(r.out());
  }

  @Test
  void theDefaultIsBalanced() throws IOException {
    CliRun plain = assign("a\nb\nc\n", "1\n2\n3\n4\n5\n6\n7\n");
    CliRun balanced = assign("a\nb\nc\n", "1\n2\n3\n4\n5\n6\n7\n", "--strategy", "balanced");
    assertThat(plain.code()).as(plain.err()).isZero();
    assertThat(plain.out()).isEqualTo(balanced.out());
  }

  /** Loads of the printed table, member to unit list. */
  static java.util.Map<String, List<String>> parse(String out) {
    java.util.Map<String, List<String>> m = new java.util.TreeMap<>();
    for (String line : out.split("\n")) {
      int sep = line.indexOf(':');
      String rest = line.substring(sep + 1);
      m.put(line.substring(0, sep), rest.isEmpty() ? List.of() : List.of(rest.split(",")));
    }
    return m;
  }

  static int moved(java.util.Map<String, List<String>> before, java.util.Map<String, List<String>> after) {
    java.util.Map<String, String> owner = new java.util.HashMap<>();
    after.forEach((m, us) -> us.forEach(u -> owner.put(u, m)));
    int n = 0;
    for (var e : before.entrySet()) {
      for (String u : e.getValue()) {
        if (owner.containsKey(u) && !owner.get(u).equals(e.getKey())) {
          n++;
        }
      }
    }
    return n;
  }

  @Test
  void theOutputFedBackAsPreviousChainsLeavesJoinsAndUnitChanges() throws IOException {
    StringBuilder units = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      units.append("u").append(i).append('\n');
    }
    CliRun first = assign("a\nb\nc\nd\n", units.toString());
    assertThat(first.code()).as(first.err()).isZero();
    // the same inputs and the output as --previous: the same table
    CliRun same = assign("a\nb\nc\nd\n", units.toString(), "--previous", file("p0", first.out()).toString());
    assertThat(same.out()).isEqualTo(first.out());
    // d leaves: only its 10 units move, the table in force lists a member that is gone
    CliRun leave = assign("a\nb\nc\n", units.toString(), "--previous", file("p1", first.out()).toString());
    assertThat(leave.code()).as(leave.err()).isZero();
    assertThat(moved(parse(first.out()), parse(leave.out()))).isEqualTo(10);
    // e joins: it takes 10 units, nothing else moves
    CliRun join = assign("a\nb\nc\ne\n", units.toString(), "--previous", file("p2", leave.out()).toString());
    assertThat(parse(join.out()).get("e")).hasSize(10);
    assertThat(moved(parse(leave.out()), parse(join.out()))).isEqualTo(10);
    // four units more: no other unit moves
    CliRun grow = assign("a\nb\nc\ne\n", units + "n1\nn2\nn3\nn4\n", "--previous", file("p3", join.out()).toString());
    assertThat(moved(parse(join.out()), parse(grow.out()))).isZero();
    assertThat(parse(grow.out()).values()).allMatch(l -> l.size() == 11);
  }

  @Test
  void missingFileIsExit2NamingIt() {
    CliRun r = CliRun.of("assign", "--services", dir.resolve("nope.txt").toString(), "--units", dir.resolve("u").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("nope.txt").contains("does not exist");
  }

  @Test
  void emptyNameIsExit2NamingTheLine() throws IOException {
    CliRun r = assign("a\n", "x\n\ny\n");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("line 2").contains("empty unit name");
  }

  @Test
  void duplicatesAreDroppedWithAWarningOrRejectedWhenStrict() throws IOException {
    CliRun r = assign("a\na\n", "x\ny\nx\n");
    assertThat(r.code()).isZero();
    assertThat(r.err()).contains("duplicate unit 'x'").contains("duplicate service 'a'");
    assertThat(r.out()).matches("a:(x,y|y,x)\n");
    CliRun strict = assign("a\na\n", "x\ny\nx\n", "--strict");
    assertThat(strict.code()).isEqualTo(2);
  }

  @Test
  void unitWithCommaIsExit2NamingTheUnit() throws IOException {
    CliRun r = assign("a\n", "x\nbad,unit\n");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("'bad,unit'");
  }

  @Test
  void unknownStrategyListsTheKnownOnes() throws IOException {
    CliRun r = assign("a\n", "x\n", "--strategy", "magic");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("magic").contains("rendezvous").contains("seed-ring");
  }

  @Test
  void badWeightsAreExit2() throws IOException {
    assertThat(assign("a\n", "x\n", "--weights", file("w1", "a -1\n").toString()).err())
        .contains("affinity must be a whole number");
    assertThat(assign("a\n", "x\n", "--weights", file("w2", "zz 1\n").toString()).err()).contains("'zz' is not in");
  }

  @Test
  void unicodeNamesAreByteOrdered() throws IOException {
    // U+FFFD (BMP) sorts before U+1F600 (emoji) in UTF-8 byte order, though not in UTF-16 order
    CliRun r = assign("\uD83D\uDE00\n\uFFFD\n", "ü\n");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("\uFFFD:");
  }
}
