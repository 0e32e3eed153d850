package io.allot.testkit.overlap;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.overlap.OverlapChecker.Interval;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker must be able to fail: these logs contain overlaps and token regressions it has to find. */
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
    assertThat(r.clean()).isTrue();
    assertThat(r.intervals()).isEqualTo(2);
    assertThat(r.byUnit().get("u1")).extracting(Interval::owner).containsExactly("a", "b");
  }

  @Test
  void findsAnOverlap() throws Exception {
    Path a = file("a", "100 start u1 5\n250 stop u1\n");
    Path b = file("b", "200 start u1 6\n300 stop u1\n");
    OverlapChecker.Report r = OverlapChecker.check(Map.of("a", a, "b", b), Map.of(), 1000);
    assertThat(r.overlaps()).hasSize(1);
    assertThat(r.clean()).isFalse();
    assertThat(r.violations()).singleElement().asString().contains("u1").contains("b (token 6) started at 200");
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

  @Test
  void anOwnerMayKeepItsTokenButNeverGoBack() {
    List<Interval> same = List.of(new Interval("u", "a", 5, 0, 10), new Interval("u", "a", 5, 20, 30));
    assertThat(OverlapChecker.check(same).clean()).isTrue();
    List<Interval> equalForNewOwner = List.of(new Interval("u", "a", 5, 0, 10), new Interval("u", "b", 5, 20, 30));
    assertThat(OverlapChecker.check(equalForNewOwner).problems()).singleElement().asString().contains("not larger");
    List<Interval> back = List.of(new Interval("u", "a", 5, 0, 10), new Interval("u", "a", 4, 20, 30));
    assertThat(OverlapChecker.check(back).problems()).singleElement().asString().contains("smaller");
  }

  @Test
  void anIntervalInsideALongOneOverlapsIt() {
    List<Interval> nested = List.of(new Interval("u", "a", 1, 0, 100), new Interval("u", "b", 2, 10, 20),
        new Interval("u", "c", 3, 30, 40));
    assertThat(OverlapChecker.check(nested).overlaps()).hasSize(2)
        .allSatisfy(o -> assertThat(o.a().owner()).isEqualTo("a"));
  }

  @Test
  void malformedLinesAndUnmatchedStopsAreProblemsButAnUnfinishedLastLineIsNot() throws Exception {
    Path a = file("a", "100 start u1 5\nnonsense\n120 start u2\n130 stop u9\n140 info hello\n150 stop u1\n160 sta");
    OverlapChecker.Report r = OverlapChecker.check(Map.of("a", a), Map.of(), 1000);
    assertThat(r.problems()).hasSize(3)
        .anyMatch(p -> p.contains("'nonsense'"))
        .anyMatch(p -> p.contains("'120 start u2'"))
        .anyMatch(p -> p.contains("stop of u9"));
    assertThat(r.intervals()).isEqualTo(1);
  }

  @Test
  void aSecondStartWithoutAStopIsAProblem() throws Exception {
    Path a = file("a", "100 start u1 5\n200 start u1 5\n300 stop u1\n");
    OverlapChecker.Report r = OverlapChecker.check(Map.of("a", a), Map.of(), 1000);
    assertThat(r.problems()).singleElement().asString().contains("twice");
    assertThat(r.overlaps()).isEmpty();
  }
}
