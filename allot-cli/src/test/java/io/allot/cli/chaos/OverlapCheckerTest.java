package io.allot.cli.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker must be able to fail: these logs contain overlaps it has to find. */
class OverlapCheckerTest {
  @TempDir Path dir;

  Path file(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  @Test
  void cleanHandoffHasNoOverlap() throws Exception {
    Path a = file("a", "100 start u1 5\n200 stop u1\n");
    Path b = file("b", "200 start u1 6\n300 stop u1\n");
    OverlapChecker.Report r = OverlapChecker.check(Map.of("a", a, "b", b), Map.of(), 1000);
    assertThat(r.overlaps()).isEmpty();
    assertThat(r.problems()).isEmpty();
    assertThat(r.intervals()).isEqualTo(2);
  }

  @Test
  void findsAnOverlap() throws Exception {
    Path a = file("a", "100 start u1 5\n250 stop u1\n");
    Path b = file("b", "200 start u1 6\n300 stop u1\n");
    assertThat(OverlapChecker.check(Map.of("a", a, "b", b), Map.of(), 1000).overlaps()).hasSize(1);
  }

  @Test
  void leaseLostAndKillEndIntervalsAndOpenOnesRunToTheEnd() throws Exception {
    Path a = file("a", "100 start u1 5\n100 start u2 6\n150 lease-lost\n");
    Path b = file("b", "160 start u1 7\n");
    Path c = file("c", "10 start u3 1\n");
    Path d = file("d", "90 start u3 2\n"); // c was never killed: c and d overlap on u3
    OverlapChecker.Report r = OverlapChecker.check(Map.of("a", a, "b", b, "c", c, "d", d), Map.of(), 1000);
    assertThat(r.overlaps()).hasSize(1);
    assertThat(r.overlaps().get(0).a().unit()).isEqualTo("u3");
    OverlapChecker.Report killed = OverlapChecker.check(Map.of("a", a, "b", b, "c", c, "d", d), Map.of("c", 80L), 1000);
    assertThat(killed.overlaps()).isEmpty();
  }

  @Test
  void aSmallerTokenForALaterOwnerIsReported() throws Exception {
    Path a = file("a", "100 start u1 9\n200 stop u1\n");
    Path b = file("b", "300 start u1 3\n");
    assertThat(OverlapChecker.check(Map.of("a", a, "b", b), Map.of(), 1000).problems()).anyMatch(p -> p.contains("token"));
  }
}
