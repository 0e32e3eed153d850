package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HandoffTest extends WorkerTestBase {

  @Test
  void theNextOwnerClaimsOnlyAfterThePreviousOneConfirmed() {
    M a = member("A", mem, b -> b, false);
    M b = member("B", mem, x -> x, true);
    table.publish(a.id(), "u1", b.id(), "");
    await().until(() -> a.d().assigned().containsKey("u1"));
    long tokenA = a.d().assigned().get("u1");

    table.publish(a.id(), "", b.id(), "u1");
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 1);
    // B tries (the table says so) and is refused while A still owns the unit
    await().until(() -> b.d().stats().claimsRefused() >= 2);
    assertThat(b.r().starts()).isEmpty();
    assertThat(mem.ownership(P).owners().get("u1").member()).isEqualTo(a.id());
    assertThat(a.d().assigned()).containsKey("u1");

    a.r().confirm("u1");

    // on B's delivered start, not on B's assigned(): that changes before the event thread delivers the start
    await().until(() -> !b.r().starts().isEmpty());
    assertThat(b.r().starts()).singleElement().satisfies(s -> assertThat(s.token()).isGreaterThan(tokenA));
    assertThat(mem.ownership(P).owners().get("u1").member()).isEqualTo(b.id());
    assertThat(a.d().assigned()).isEmpty();
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void underChurnNoUnitEverRunsOnTwoMembersAtOnce() {
    List<M> ms = new ArrayList<>();
    for (String n : List.of("A", "B", "C")) {
      Recorder r = new Recorder(n, intervals).confirmLater(delayer, 40);
      ms.add(new M(started(fast(mem, r), r), r));
    }
    List<String> units = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      units.add("u" + i);
    }
    Random rnd = new Random(42);
    Map<String, String> last = Map.of();
    for (int round = 0; round < 25; round++) {
      Map<String, List<String>> share = new LinkedHashMap<>();
      ms.forEach(m -> share.put(m.id(), new ArrayList<>()));
      for (String u : units) {
        share.get(ms.get(rnd.nextInt(ms.size())).id()).add(u);
      }
      Map<String, String> fields = new LinkedHashMap<>();
      share.forEach((m, us) -> fields.put(m, String.join(",", us)));
      table.publish(fields);
      last = fields;
      long pause = 20 + rnd.nextInt(120);
      long until = System.nanoTime() + pause * 1_000_000L;
      await().pollDelay(Duration.ZERO).until(() -> System.nanoTime() >= until); // let handoffs overlap rounds
    }
    Map<String, String> expected = new LinkedHashMap<>();
    last.forEach((m, v) -> {
      for (String u : v.split(",")) {
        if (!u.isEmpty()) {
          expected.put(u, m);
        }
      }
    });
    await().atMost(Duration.ofSeconds(15)).until(() -> mem.ownership(P).owners().entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().member())).equals(expected)
        && ms.stream().allMatch(m -> m.d().assigned().keySet().equals(unitsOf(expected, m.id()))));
    await().until(() -> intervals.running().equals(namesOf(expected, ms)));

    assertThat(intervals.check().violations()).isEmpty();
    assertThat(intervals.intervals()).isGreaterThan(units.size() * 3);
    long refused = ms.stream().mapToLong(m -> m.d().stats().claimsRefused()).sum();
    assertThat(refused).as("handoffs raced with claims").isPositive();
  }

  private static Set<String> unitsOf(Map<String, String> unitToMember, String member) {
    return unitToMember.entrySet().stream().filter(e -> e.getValue().equals(member)).map(Map.Entry::getKey)
        .collect(Collectors.toSet());
  }

  private static Map<String, String> namesOf(Map<String, String> unitToMember, List<M> ms) {
    Map<String, String> out = new java.util.HashMap<>();
    unitToMember.forEach((u, id) -> out.put(u, ms.stream().filter(m -> m.id().equals(id)).findFirst().orElseThrow().r().name()));
    return out;
  }
}
