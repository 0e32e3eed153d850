package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/** seed-ring against {@link SeedRingOracle}, the naive port of the Go code. */
class SeedRingProperties {
  static final SeedRingAssigner ASSIGNER = new SeedRingAssigner();

  /** Member ids (distinct), units (distinct), per-member affinity and capacity, a shuffle seed. */
  record Case(List<String> members, List<String> units, List<Integer> affinities, List<Integer> capacities, long seed) {
    List<Member> asMembers() {
      List<Member> out = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        out.add(Member.of(members.get(i), affinities.get(i), capacities.get(i)));
      }
      return out;
    }

    @Override
    public String toString() {
      return "Case{M=" + members.size() + ", N=" + units.size() + ", members=" + members + ", units=" + units
          + ", affinities=" + affinities + ", capacities=" + capacities + "}";
    }
  }

  // ---------------------------------------------------------------- generators

  /** Code points that exercise UTF-8 byte order: ASCII, 2- and 3-byte, above the surrogates, 4-byte. */
  static Arbitrary<Integer> codePoints() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, Arbitraries.integers().between(0x21, 0x7e).filter(c -> c != ',')),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0xa0, 0x7ff)),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0x4e00, 0x4e3f)),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0xe000, 0xfffd)), // above surrogates in UTF-16
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0x1f600, 0x1f64f)), // emoji
        net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10ffff)));
  }

  static String fromCodePoints(List<Integer> cps) {
    StringBuilder b = new StringBuilder();
    cps.forEach(b::appendCodePoint);
    return b.toString();
  }

  /** Names: short ASCII, unicode, point-key lookalikes ("a", "a-1", "a-10"), long (multi-block). */
  static Arbitrary<String> names() {
    Arbitrary<String> plain = Arbitraries.strings().withCharRange('a', 'z').numeric().ofMinLength(1).ofMaxLength(10);
    Arbitrary<String> unicode = codePoints().list().ofMinSize(1).ofMaxSize(8).map(SeedRingProperties::fromCodePoints);
    Arbitrary<String> lookalike =
        Combinators.combine(
                Arbitraries.strings().withCharRange('a', 'c').ofMinLength(1).ofMaxLength(3),
                Arbitraries.integers().between(-1, 60))
            .as((s, j) -> j < 0 ? s : s + "-" + j);
    Arbitrary<String> longAscii = Arbitraries.strings().alpha().numeric().withChars('-').ofMinLength(56).ofMaxLength(200);
    Arbitrary<String> longUnicode = codePoints().list().ofMinSize(20).ofMaxSize(60).map(SeedRingProperties::fromCodePoints);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, plain),
        net.jqwik.api.Tuple.of(3, unicode),
        net.jqwik.api.Tuple.of(3, lookalike),
        net.jqwik.api.Tuple.of(1, longAscii),
        net.jqwik.api.Tuple.of(1, longUnicode));
  }

  /** N below, equal to and above M. */
  static Arbitrary<int[]> sizes(int maxMembers, int maxUnits) {
    return uniform(1, maxMembers)
        .flatMap(
            m ->
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(2, uniform(0, m - 1)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(m)),
                        net.jqwik.api.Tuple.of(3, uniform(m + 1, Math.min(maxUnits, 3 * m))),
                        // the oracle is quadratic: large N in a fifth of the cases only
                        net.jqwik.api.Tuple.of(2, uniform(m + 1, maxUnits)))
                    .map(n -> new int[] {m, n}));
  }

  /** Uniform, not jqwik's default bias towards small values. */
  static Arbitrary<Integer> uniform(int min, int max) {
    return Arbitraries.integers().between(min, max).withDistribution(RandomDistribution.uniform());
  }

  static Arbitrary<Case> cases(int maxMembers, int maxUnits, Arbitrary<Integer> affinity, Arbitrary<Integer> capacity) {
    return sizes(maxMembers, maxUnits)
        .flatMap(
            mn -> {
              int m = mn[0];
              int n = mn[1];
              return Combinators.combine(
                      names().list().ofSize(m).uniqueElements(),
                      names().list().ofSize(n).uniqueElements(),
                      affinity.list().ofSize(m),
                      capacity.list().ofSize(m),
                      Arbitraries.integers().between(0, 3),
                      Arbitraries.longs())
                  .as(
                      (members, units, affs, caps, lookalikes, seed) -> {
                        // some members named exactly like a ring point ("unit-j"): same position
                        List<String> ms = new ArrayList<>(members);
                        Set<String> taken = new HashSet<>(ms);
                        for (int i = 0; i < lookalikes && i < n && i < m; i++) {
                          String id = units.get(i) + "-" + ((13 * i + 7) % 50);
                          if (taken.add(id)) {
                            ms.set(i, id);
                          }
                        }
                        return new Case(ms, units, affs, caps, seed);
                      });
            });
  }

  @Provide
  Arbitrary<Case> plain() {
    return cases(40, 300, Arbitraries.just(1), Arbitraries.just(Member.UNLIMITED));
  }

  @Provide
  Arbitrary<Case> weighted() {
    return cases(
        20,
        150,
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(2, Arbitraries.just(0)), net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1, 5))),
        Arbitraries.just(Member.UNLIMITED));
  }

  @Provide
  Arbitrary<Case> capped() {
    return cases(
        20,
        150,
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(1, Arbitraries.just(0)), net.jqwik.api.Tuple.of(4, Arbitraries.just(1))),
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(2, Arbitraries.just(Member.UNLIMITED)),
            net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 12))));
  }

  // ---------------------------------------------------------------- oracle comparison

  /** Runs the oracle on the members that take part, with their capacities. */
  static SeedRingOracle.Result oracle(Case c) {
    List<String> services = new ArrayList<>();
    Map<String, Integer> caps = new HashMap<>();
    for (int i = 0; i < c.members().size(); i++) {
      if (c.affinities().get(i) > 0) {
        services.add(c.members().get(i));
        if (c.capacities().get(i) != Member.UNLIMITED) {
          caps.put(c.members().get(i), c.capacities().get(i));
        }
      }
    }
    if (services.isEmpty()) { // the Go distributor refuses to run without services
      return new SeedRingOracle.Result(Map.of(), new ArrayList<>(c.units()));
    }
    return SeedRingOracle.putToMatchingTable(services, c.units(), caps);
  }

  static void assertMatchesOracle(Case c, Table t) {
    SeedRingOracle.Result r = oracle(c);
    assertThat(t.members()).containsExactlyInAnyOrderElementsOf(c.members());
    for (int i = 0; i < c.members().size(); i++) {
      String id = c.members().get(i);
      List<String> want = r.table().getOrDefault(id, List.of());
      assertThat(t.unitsOf(id)).as("units of %s", id).containsExactlyElementsOf(want);
      assertThat(t.toDistributionHash().get(id)).as("published value of %s", id).isEqualTo(String.join(",", want));
    }
    List<String> left = new ArrayList<>(r.leftOnRing());
    left.sort(SeedRingOracle::goStringCompare);
    assertThat(t.unassigned()).containsExactlyElementsOf(left);
  }

  // edge cases off: jqwik's mixed-in edge cases here are mostly N = 0 and would crowd out real
  // cases; the small corner sizes are covered by SeedRingAssignerTest.cornerSizesEqualTheOracle
  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF) // coverage is still checked
  void equalsTheOriginal(@ForAll("plain") Case c) {
    Table t = ASSIGNER.assign(c.asMembers(), c.units());
    assertMatchesOracle(c, t);
    assertThat(t.unassigned()).isEmpty();
    assertThat(t.assignedCount()).isEqualTo(c.units().size());
  }

  /**
   * The generator of {@link #equalsTheOriginal} really produces the cases it is meant to cover. This checks the
   * generator, not the code, so it runs on a fixed seed: statistical thresholds on random runs fail now and then
   * by chance (one did, at 2 % against a 5 % threshold), and a test must fail only for a reason.
   */
  @Property(tries = 300, seed = "20261123", edgeCases = EdgeCasesMode.NONE)
  @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF)
  void theGeneratorCoversTheCasesThatMatter(@ForAll("plain") Case c) {
    collectAndCheckCoverage(c);
  }

  /** Makes sure the generator really produces the cases this property is meant to cover. */
  static void collectAndCheckCoverage(Case c) {
    int n = c.units().size();
    int m = c.members().size();
    List<String> names = new ArrayList<>(c.members());
    names.addAll(c.units());
    Set<String> pointKeys = new HashSet<>();
    for (String u : c.units()) {
      for (int j = 0; j < 50; j++) {
        pointKeys.add(u + "-" + j);
      }
    }
    Statistics.label("N vs M").collect(n < m ? "N<M" : n == m ? "N=M" : "N>M");
    Statistics.label("N").collect(n == 0 ? "0" : n < 50 ? "1-49" : n < 150 ? "50-149" : "150-300");
    Statistics.label("N").coverage(k -> k.check("150-300").percentage(p -> p > 5));
    Statistics.label("member named like a point").collect(c.members().stream().anyMatch(pointKeys::contains));
    Statistics.label("unit named like another unit's point")
        .collect(c.units().stream().anyMatch(pointKeys::contains));
    Statistics.label("supplementary char").collect(names.stream().anyMatch(s -> s.codePoints().anyMatch(cp -> cp > 0xffff)));
    Statistics.label("multi-block key")
        .collect(names.stream().anyMatch(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 52));
    Statistics.label("N vs M").coverage(k -> {
      k.check("N<M").percentage(p -> p > 10);
      k.check("N=M").percentage(p -> p > 10);
      k.check("N>M").percentage(p -> p > 30);
    });
    for (String label : List.of("member named like a point", "unit named like another unit's point", "supplementary char", "multi-block key")) {
      Statistics.label(label).coverage(k -> k.check(true).percentage(p -> p > 5));
    }
  }

  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  void inputOrderDoesNotMatter(@ForAll("plain") Case c) {
    Table t = ASSIGNER.assign(c.asMembers(), c.units());
    List<Member> ms = new ArrayList<>(c.asMembers());
    List<String> us = new ArrayList<>(c.units());
    Random rnd = new Random(c.seed());
    Collections.shuffle(ms, rnd);
    Collections.shuffle(us, rnd);
    Table shuffled = ASSIGNER.assign(ms, new LinkedHashSet<>(us), Table.EMPTY);
    assertThat(shuffled).isEqualTo(t);
    assertThat(shuffled.format()).isEqualTo(t.format());
  }

  @Property(tries = 80, edgeCases = EdgeCasesMode.NONE)
  void affinityZeroTakesNoPartAndOtherAffinitiesAreIgnored(@ForAll("weighted") Case c) {
    Table t = ASSIGNER.assign(c.asMembers(), c.units());
    assertMatchesOracle(c, t);
    for (int i = 0; i < c.members().size(); i++) {
      if (c.affinities().get(i) == 0) {
        assertThat(t.unitsOf(c.members().get(i))).isEmpty();
      }
    }
    boolean anyActive = c.affinities().stream().anyMatch(a -> a > 0);
    assertThat(t.unassigned()).hasSize(anyActive ? 0 : c.units().size());
  }

  @Property(tries = 80, edgeCases = EdgeCasesMode.NONE)
  void capacityIsRespectedAndOverflowReported(@ForAll("capped") Case c) {
    Table t = ASSIGNER.assign(c.asMembers(), c.units());
    assertMatchesOracle(c, t);
    for (int i = 0; i < c.members().size(); i++) {
      assertThat(t.unitsOf(c.members().get(i)).size()).isLessThanOrEqualTo(c.capacities().get(i));
    }
    // coverage: every unit exactly once, assigned or unassigned
    List<String> all = new ArrayList<>(t.unassigned());
    t.byMember().values().forEach(all::addAll);
    assertThat(all).containsExactlyInAnyOrderElementsOf(c.units());
    List<String> sorted = new ArrayList<>(t.unassigned());
    sorted.sort(Names.BYTE_ORDER);
    assertThat(t.unassigned()).containsExactlyElementsOf(sorted);
  }
}
