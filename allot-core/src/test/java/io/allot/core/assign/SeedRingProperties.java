package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import io.allot.core.testing.Tries;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * seed-ring against {@link SeedRingOracle}, the naive port of the Go code, on seeded random cases ({@link Tries}).
 * No edge cases are mixed in: the small corner sizes are covered by {@code
 * SeedRingAssignerTest.cornerSizesEqualTheOracle}, and {@link #theGeneratorCoversTheCasesThatMatter} checks that the
 * generator reaches the rest.
 */
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
  static int codePoint(Random r) {
    return switch (Tries.weighted(r, 5, 2, 2, 2, 2, 1)) {
      case 0 -> {
        int c = uniform(r, 0x21, 0x7e - 1);
        yield c >= ',' ? c + 1 : c; // not the separator
      }
      case 1 -> uniform(r, 0xa0, 0x7ff);
      case 2 -> uniform(r, 0x4e00, 0x4e3f);
      case 3 -> uniform(r, 0xe000, 0xfffd); // above surrogates in UTF-16
      case 4 -> uniform(r, 0x1f600, 0x1f64f); // emoji
      default -> uniform(r, 0x10000, 0x10ffff);
    };
  }

  static String codePoints(Random r, int min, int max) {
    StringBuilder b = new StringBuilder();
    int n = Tries.between(r, min, max);
    for (int i = 0; i < n; i++) {
      b.appendCodePoint(codePoint(r));
    }
    return b.toString();
  }

  static String chars(Random r, String from, int min, int max) {
    StringBuilder b = new StringBuilder();
    int n = Tries.between(r, min, max);
    for (int i = 0; i < n; i++) {
      b.append(from.charAt(r.nextInt(from.length())));
    }
    return b.toString();
  }

  static final String LOWER_AND_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789";
  static final String ALPHANUMERIC_AND_DASH = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-";

  /** Names: short ASCII, unicode, point-key lookalikes ("a", "a-1", "a-10"), long (multi-block). */
  static String name(Random r) {
    return switch (Tries.weighted(r, 6, 3, 3, 1, 1)) {
      case 0 -> chars(r, LOWER_AND_DIGITS, 1, 10);
      case 1 -> codePoints(r, 1, 8);
      case 2 -> {
        String s = chars(r, "abc", 1, 3);
        int j = Tries.between(r, -1, 60);
        yield j < 0 ? s : s + "-" + j;
      }
      case 3 -> chars(r, ALPHANUMERIC_AND_DASH, 56, 200);
      default -> codePoints(r, 20, 60);
    };
  }

  static List<String> distinctNames(Random r, int n) {
    Set<String> out = new LinkedHashSet<>();
    while (out.size() < n) {
      out.add(name(r));
    }
    return new ArrayList<>(out);
  }

  /** Uniform: every value equally likely. */
  static int uniform(Random r, int min, int max) {
    return min + r.nextInt(max - min + 1);
  }

  /** M and N, with N below, equal to and above M. */
  static int[] sizes(Random r, int maxMembers, int maxUnits) {
    int m = uniform(r, 1, maxMembers);
    int n = switch (Tries.weighted(r, 2, 2, 3, 2)) {
      case 0 -> uniform(r, 0, m - 1);
      case 1 -> m;
      case 2 -> uniform(r, m + 1, Math.min(maxUnits, 3 * m));
      default -> uniform(r, m + 1, maxUnits); // the oracle is quadratic: large N in a fifth of the cases only
    };
    return new int[] {m, n};
  }

  static Case randomCase(
      Random r, int maxMembers, int maxUnits, ToIntFunction<Random> affinity, ToIntFunction<Random> capacity) {
    int[] mn = sizes(r, maxMembers, maxUnits);
    int m = mn[0];
    int n = mn[1];
    List<String> members = distinctNames(r, m);
    List<String> units = distinctNames(r, n);
    List<Integer> affs = new ArrayList<>();
    List<Integer> caps = new ArrayList<>();
    for (int i = 0; i < m; i++) {
      affs.add(affinity.applyAsInt(r));
    }
    for (int i = 0; i < m; i++) {
      caps.add(capacity.applyAsInt(r));
    }
    int lookalikes = Tries.between(r, 0, 3);
    long seed = r.nextLong();
    // some members named exactly like a ring point ("unit-j"): same position
    Set<String> taken = new HashSet<>(members);
    for (int i = 0; i < lookalikes && i < n && i < m; i++) {
      String id = units.get(i) + "-" + ((13 * i + 7) % 50);
      if (taken.add(id)) {
        members.set(i, id);
      }
    }
    return new Case(members, units, affs, caps, seed);
  }

  static Case plain(Random r) {
    return randomCase(r, 40, 300, x -> 1, x -> Member.UNLIMITED);
  }

  static Case weighted(Random r) {
    return randomCase(r, 20, 150, x -> Tries.weighted(x, 2, 3) == 0 ? 0 : Tries.between(x, 1, 5), x -> Member.UNLIMITED);
  }

  static Case capped(Random r) {
    return randomCase(
        r,
        20,
        150,
        x -> Tries.weighted(x, 1, 4) == 0 ? 0 : 1,
        x -> Tries.weighted(x, 2, 3) == 0 ? Member.UNLIMITED : Tries.between(x, 0, 12));
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

  @Test
  void equalsTheOriginal() {
    Tries.forAll(100, SeedRingProperties::plain, this::equalsTheOriginal);
  }

  private void equalsTheOriginal(Case c) {
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
  @Test
  void theGeneratorCoversTheCasesThatMatter() {
    Random seeds = new Random(20261123);
    List<Case> cases = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      cases.add(plain(new Random(seeds.nextLong())));
    }
    checkCoverage(cases);
  }

  /** Makes sure the cases are those the properties are meant to cover: the share of each kind, in percent. */
  static void checkCoverage(List<Case> cases) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Case c : cases) {
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
      List<String> kinds = new ArrayList<>();
      kinds.add(n < m ? "N<M" : n == m ? "N=M" : "N>M");
      if (n >= 150) {
        kinds.add("N 150-300");
      }
      if (c.members().stream().anyMatch(pointKeys::contains)) {
        kinds.add("member named like a point");
      }
      if (c.units().stream().anyMatch(pointKeys::contains)) {
        kinds.add("unit named like another unit's point");
      }
      if (names.stream().anyMatch(s -> s.codePoints().anyMatch(cp -> cp > 0xffff))) {
        kinds.add("supplementary char");
      }
      if (names.stream().anyMatch(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 52)) {
        kinds.add("multi-block key");
      }
      kinds.forEach(k -> counts.merge(k, 1, Integer::sum));
    }
    Map<String, Double> percent = new TreeMap<>();
    counts.forEach((k, v) -> percent.put(k, 100.0 * v / cases.size()));
    Map<String, Double> atLeast = Map.of(
        "N<M", 10.0, "N=M", 10.0, "N>M", 30.0, "N 150-300", 5.0,
        "member named like a point", 5.0, "unit named like another unit's point", 5.0,
        "supplementary char", 5.0, "multi-block key", 5.0);
    atLeast.forEach((kind, min) -> assertThat(percent.getOrDefault(kind, 0.0))
        .as("%% of cases with %s, of %s", kind, percent)
        .isGreaterThan(min));
  }

  @Test
  void inputOrderDoesNotMatter() {
    Tries.forAll(100, SeedRingProperties::plain, this::inputOrderDoesNotMatter);
  }

  private void inputOrderDoesNotMatter(Case c) {
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

  @Test
  void affinityZeroTakesNoPartAndOtherAffinitiesAreIgnored() {
    Tries.forAll(80, SeedRingProperties::weighted, this::affinityZeroTakesNoPartAndOtherAffinitiesAreIgnored);
  }

  private void affinityZeroTakesNoPartAndOtherAffinitiesAreIgnored(Case c) {
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

  @Test
  void capacityIsRespectedAndOverflowReported() {
    Tries.forAll(80, SeedRingProperties::capped, this::capacityIsRespectedAndOverflowReported);
  }

  private void capacityIsRespectedAndOverflowReported(Case c) {
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
