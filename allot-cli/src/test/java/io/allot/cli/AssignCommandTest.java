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
