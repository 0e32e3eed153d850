package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SeedRingAssignerTest {
  static final SeedRingAssigner A = new SeedRingAssigner();

  static List<Member> members(String... ids) {
    return Arrays.stream(ids).map(Member::of).collect(Collectors.toList());
  }

  static List<String> units(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toList());
  }

  @Test
  void nameAndRegistry() {
    assertThat(A.name()).isEqualTo("seed-ring");
    assertThat(Assigners.byName("seed-ring")).isInstanceOf(SeedRingAssigner.class);
  }

  /** The original distributor's own test vector (distributor_test.go, TestPutToMatchingTable). */
  @Test
  void originalTestVector() {
    Table t = A.assign(members("service3", "service1", "service2"), List.of("work1", "work2", "work3"));
    assertThat(t.toDistributionHash())
        .containsExactly(Map.entry("service1", "work2"), Map.entry("service2", "work1"), Map.entry("service3", "work3"));
    assertThat(t.format()).isEqualTo("service1:work2\nservice2:work1\nservice3:work3\n");
    assertThat(t.unassigned()).isEmpty();
  }

  @Test
  void theOracleAgreesOnTheTestVector() {
    SeedRingOracle.Result r =
        SeedRingOracle.putToMatchingTable(List.of("service3", "service1", "service2"), List.of("work1", "work2", "work3"), null);
    assertThat(r.published())
        .containsExactly(Map.entry("service1", "work2"), Map.entry("service2", "work1"), Map.entry("service3", "work3"));
  }

  @Test
  void mediumSizeEqualsTheOracle() {
    List<Member> ms = members("node-a", "node-b", "node-c", "node-d", "node-e", "node-f", "node-g");
    List<String> us = units("shard-", 503);
    Table t = A.assign(ms, us);
    SeedRingOracle.Result r = SeedRingOracle.putToMatchingTable(ms.stream().map(Member::id).toList(), us, null);
    assertThat(t.toDistributionHash()).isEqualTo(r.published());
    for (Member m : ms) {
      assertThat(t.unitsOf(m.id())).containsExactlyElementsOf(r.table().get(m.id()));
    }
  }

  @Test
  void cornerSizesEqualTheOracle() {
    Random rnd = new Random(7);
    for (int m : new int[] {1, 2, 3, 40}) {
      for (int n : new int[] {0, 1, 2, 3, 39, 40, 41, 81}) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < m; i++) {
          ids.add("m" + rnd.nextInt(1000) + "-" + i);
        }
        List<String> us = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          us.add("u" + rnd.nextInt(1000) + "-" + i);
        }
        Table t = A.assign(ids.stream().map(Member::of).toList(), us);
        SeedRingOracle.Result r = SeedRingOracle.putToMatchingTable(ids, us, null);
        assertThat(t.toDistributionHash()).as("M=%d N=%d", m, n).isEqualTo(r.published());
        for (String id : ids) {
          assertThat(t.unitsOf(id)).containsExactlyElementsOf(r.table().get(id));
        }
      }
    }
  }

  @Test
  void hundredThousandUnitsAreEachAssignedOnce() {
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ms.add(Member.of("svc-" + i));
    }
    List<String> us = units("unit-", 100_000);
    Table t = A.assign(ms, us);
    assertThat(t.members()).hasSize(100);
    assertThat(t.unassigned()).isEmpty();
    assertThat(t.assignedCount()).isEqualTo(100_000);
    // plain Java checks: AssertJ's containsAll on 100k elements is quadratic
    Set<String> seen = new HashSet<>();
    List<String> twice = new ArrayList<>();
    t.byMember().values().forEach(l -> l.forEach(u -> {
      if (!seen.add(u)) {
        twice.add(u);
      }
    }));
    assertThat(twice).isEmpty();
    assertThat(seen.size()).isEqualTo(100_000);
    assertThat(seen.containsAll(us)).isTrue();
    assertThat(t.loads().values()).allMatch(l -> l == 1000);
  }

  @Test
  void theLastMemberInByteOrderTakesTheRemainder() {
    Table t = A.assign(members("b", "c", "a"), units("u", 11));
    assertThat(t.loads()).containsExactly(Map.entry("a", 3), Map.entry("b", 3), Map.entry("c", 5));
  }

  @Test
  void fewerUnitsThanMembers() {
    Table t = A.assign(members("m1", "m2", "m3", "m4", "m5"), List.of("x", "y"));
    assertThat(t.assignedCount()).isEqualTo(2);
    assertThat(t.loads().values()).containsOnly(0, 1);
    assertThat(t.members()).hasSize(5);
  }

  @Test
  void byteOrderNotUtf16Order() {
    // U+FFFD sorts before U+1F600 in bytes, after it in UTF-16 units: decides who is "last"
    String bmp = "\uFFFD";
    String emoji = "\uD83D\uDE00";
    Table t = A.assign(members(emoji, bmp), units("u", 5));
    assertThat(t.loads()).containsExactly(Map.entry(bmp, 2), Map.entry(emoji, 3));
  }

  @Test
  void noUnits() {
    Table t = A.assign(members("a", "b"), List.of());
    assertThat(t.byMember()).containsExactly(Map.entry("a", List.of()), Map.entry("b", List.of()));
    assertThat(t.unassigned()).isEmpty();
  }

  @Test
  void noMembersOrOnlyAffinityZeroLeavesEverythingUnassigned() {
    assertThat(A.assign(List.of(), List.of("b", "a")).unassigned()).containsExactly("a", "b");
    Table t = A.assign(List.of(Member.of("m", 0)), List.of("b", "a", "\uD83D\uDE00", "\uFFFD"));
    assertThat(t.unitsOf("m")).isEmpty();
    assertThat(t.members()).containsExactly("m");
    assertThat(t.unassigned()).containsExactly("a", "b", "\uFFFD", "\uD83D\uDE00");
  }

  @Test
  void affinityZeroMembersAreLeftOutOfTheWalk() {
    List<String> us = units("u", 40);
    Table without = A.assign(members("a", "c"), us);
    Table with = A.assign(List.of(Member.of("a", 3), Member.of("b", 0), Member.of("c", 1), Member.of("d", 0)), us);
    assertThat(with.unitsOf("b")).isEmpty();
    assertThat(with.unitsOf("d")).isEmpty();
    assertThat(with.unitsOf("a")).isEqualTo(without.unitsOf("a"));
    assertThat(with.unitsOf("c")).isEqualTo(without.unitsOf("c"));
    assertThat(with.members()).containsExactly("a", "b", "c", "d");
  }

  @Test
  void capacityCapsTheRequest() {
    List<String> us = units("u", 30);
    Table t = A.assign(List.of(Member.of("a", 1, 4), Member.of("b", 1, 0), Member.of("c")), us);
    assertThat(t.unitsOf("a")).hasSize(4);
    assertThat(t.unitsOf("b")).isEmpty();
    assertThat(t.unitsOf("c")).hasSize(10);
    assertThat(t.unassigned()).hasSize(16);
    List<String> sorted = new ArrayList<>(t.unassigned());
    sorted.sort(Names.BYTE_ORDER);
    assertThat(t.unassigned()).isEqualTo(sorted);
    // uncapped, a takes its 10 units from the same starting point: the capped ones are a prefix
    Table free = A.assign(members("a", "b", "c"), us);
    assertThat(free.unitsOf("a").subList(0, 4)).isEqualTo(t.unitsOf("a"));
  }

  @Test
  void rejectsBadInput() {
    assertThatThrownBy(() -> A.assign(members("a"), List.of("x", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'x'");
    assertThatThrownBy(() -> A.assign(members("a", "a"), List.of("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a'");
    assertThatThrownBy(() -> A.assign(members("a"), Arrays.asList("x", null))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void previousIsIgnored() {
    List<String> us = units("u", 20);
    Table t = A.assign(members("a", "b"), us);
    Table prev = Table.of(Map.of("a", List.of("u1", "u2")));
    assertThat(A.assign(members("a", "b"), us, prev)).isEqualTo(t);
  }

  // ---------------------------------------------------------------- internals

  /** High and Low of {@code s}'s MD5, computed apart from {@link SeedRingAssigner.RingHash}. */
  static long[] md5(String s) {
    try {
      byte[] d = java.security.MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(d).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      return new long[] {b.getLong(0), b.getLong(8)};
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void ringHashReadsTheDigestAsTwoLittleEndianLongs() {
    // RFC 1321: MD5("") = d41d8cd98f00b204 e9800998ecf8427e, MD5("abc") = 900150983cd24fb0 d6963f7d28e17f72
    long[] hl = new long[2];
    SeedRingAssigner.RingHash h = new SeedRingAssigner.RingHash();
    h.digest(new byte[0], 0, hl);
    assertThat(hl).containsExactly(0x04b2008fd98c1dd4L, 0x7e42f8ec980980e9L);
    byte[] abc = "abc!".getBytes(StandardCharsets.US_ASCII);
    h.digest(abc, 3, hl); // only the first len bytes count
    assertThat(hl).containsExactly(0xb04fd23c98500190L, 0x727fe1287d3f96d6L);
    assertThat(h.high(abc, 3)).isEqualTo(0xb04fd23c98500190L);
    assertThat(md5("abc")).containsExactly(hl);
  }

  @Test
  void ringIsSortedByHighThenLowAndHoldsEveryPoint() {
    String[] us = units("r", 2000).toArray(new String[0]);
    SeedRingAssigner.Ring ring = SeedRingAssigner.Ring.build(us);
    assertThat(ring.size).isEqualTo(2000 * 50);
    boolean[] seen = new boolean[ring.size];
    for (int i = 0; i < ring.size; i++) {
      int p = ring.point[i];
      assertThat(seen[p]).isFalse();
      seen[p] = true;
      assertThat(ring.high[i]).isEqualTo(md5(us[p / 50] + "-" + p % 50)[0]);
      if (i > 0) {
        assertThat(ring.high[i - 1]).isLessThanOrEqualTo(ring.high[i]);
      }
    }
  }

  /** Keys cross the 55/56-byte block boundary between "-9" and "-10" for some name lengths. */
  @Test
  void everyNameLengthHashesItsPointsLikeMessageDigest() throws Exception {
    java.security.MessageDigest md = java.security.MessageDigest.getInstance("MD5");
    String[] us = new String[130];
    for (int len = 1; len <= us.length; len++) {
      us[len - 1] = "x".repeat(len - 1) + (char) ('a' + len % 26);
    }
    us[60] = "\u00e9".repeat(26) + "\uD83D\uDE00"; // 56 bytes in UTF-8
    SeedRingAssigner.Ring ring = SeedRingAssigner.Ring.build(us);
    for (int i = 0; i < ring.size; i++) {
      int p = ring.point[i];
      byte[] d = md.digest((us[p / 50] + "-" + p % 50).getBytes(StandardCharsets.UTF_8));
      long high = java.nio.ByteBuffer.wrap(d, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
      assertThat(ring.high[i]).as("point %d of %s", p % 50, us[p / 50]).isEqualTo(high);
    }
  }

  @Test
  void aMemberNamedLikeAPointStartsRightAfterIt() {
    String[] us = {"work1", "work2", "work3"};
    SeedRingAssigner.Ring ring = SeedRingAssigner.Ring.build(us);
    for (int u = 0; u < us.length; u++) {
      for (int j = 0; j < 50; j++) {
        int idx = -1;
        for (int i = 0; i < ring.size; i++) {
          if (ring.point[i] == u * 50 + j) {
            idx = i;
          }
        }
        long[] key = md5(us[u] + "-" + j);
        assertThat(ring.upperBound(key[0], key[1])).isEqualTo((idx + 1) % ring.size);
      }
    }
  }

  @Test
  void equalHighsAreOrderedByLow() {
    String[] us = {"a", "b", "c"};
    int[] point = {2 * 50 + 3, 0 * 50 + 1, 1 * 50 + 7, 0 * 50 + 9, 2 * 50 + 40};
    long[] high = {5, 5, 5, 5, 5}; // pretend they collide on High
    SeedRingAssigner.Ring ring = new SeedRingAssigner.Ring(us, high, point);
    ring.orderTies(0, point.length);
    long prev = Long.MIN_VALUE;
    Set<Integer> seen = new HashSet<>();
    for (int p : point) {
      long low = md5(us[p / 50] + "-" + p % 50)[1];
      assertThat(low).isGreaterThanOrEqualTo(prev);
      prev = low;
      seen.add(p);
    }
    assertThat(seen).containsExactlyInAnyOrder(103, 1, 57, 9, 140);
    // the upper bound of a key with that High compares Lows
    long[] k = md5("b-7");
    int i = ring.upperBound(5, k[1]);
    assertThat(point[(i + point.length - 1) % point.length]).isEqualTo(57);
  }
}
