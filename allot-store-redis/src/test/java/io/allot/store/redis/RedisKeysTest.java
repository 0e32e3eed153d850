package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Tables;
import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key layout, checked against Lettuce's own Cluster slot function (no server needed). */
class RedisKeysTest {

  @Test
  void companionsOfThePlainSeedKeyAreHashTaggedWithIt() {
    String table = "sys-matching-table";
    assertThat(RedisKeys.epoch(table)).isEqualTo("{sys-matching-table}:allot:epoch");
    assertThat(RedisKeys.poolFields(table, "g1")).isEqualTo("{sys-matching-table}:allot:fields:g1");
    assertThat(RedisKeys.owners(table)).isEqualTo("{sys-matching-table}:allot:owners");
    String leaseName = Tables.leaseName(table, "g1");
    assertThat(RedisKeys.lease(leaseName)).isEqualTo("{sys-matching-table}:allot:lease:g1");
    assertThat(RedisKeys.token(leaseName)).isEqualTo("{sys-matching-table}:allot:token:g1");
  }

  @Test
  void plainLeaseNamesGetTheirOwnTag() {
    assertThat(RedisKeys.lease("distributor")).isEqualTo("{allot:lease:distributor}");
    assertThat(RedisKeys.token("distributor")).isEqualTo("{allot:lease:distributor}:token");
    assertSameSlot(RedisKeys.lease("distributor"), RedisKeys.token("distributor"));
    assertSameSlot(RedisKeys.lease("odd}name{"), RedisKeys.token("odd}name{"));
  }

  @Test
  void everyCompanionLandsInTheSlotOfItsHash() {
    for (String table : List.of("sys-matching-table", "allot:pool-1:distribution", "{pool}:distribution",
        "a{b}c", "{a}{b}", "x{y}}", "分配表-😀", "k", "a{", "table:with:colons")) {
      String leaseName = Tables.leaseName(table, "grp");
      assertSameSlot(table, RedisKeys.epoch(table), RedisKeys.poolFields(table, "grp"), RedisKeys.owners(table),
          RedisKeys.lease(leaseName), RedisKeys.token(leaseName));
      RedisKeys.checkSameSlot("test", table, RedisKeys.epoch(table), RedisKeys.lease(leaseName));
    }
  }

  @Test
  void companionsOfDifferentHashesSharingATagStayDistinct() {
    assertThat(RedisKeys.epoch("{pool}:a")).isNotEqualTo(RedisKeys.epoch("{pool}:b"));
    assertThat(SlotHash.getSlot(RedisKeys.epoch("{pool}:a"))).isEqualTo(SlotHash.getSlot("pool"));
  }

  @Test
  void poolCompanionsLandInThePoolsSlot() {
    assertThat(RedisKeys.members("sys-services")).isEqualTo("{sys-services}:allot:members");
    assertThat(RedisKeys.ownership("sys-services")).isEqualTo("{sys-services}:allot:ownership");
    assertThat(RedisKeys.counter("sys-services")).isEqualTo("{sys-services}:allot:counter");
    assertThat(RedisKeys.ownership("t")).isNotEqualTo(RedisKeys.owners("t"));
    for (String pool : List.of("sys-services", "{pool}:services", "a{b}c", "x{y}}", "サービス-😀", "a{", "p:with:colons")) {
      assertSameSlot(pool, RedisKeys.members(pool), RedisKeys.ownership(pool), RedisKeys.counter(pool),
          RedisKeys.guard(pool), RedisKeys.holds(pool));
    }
  }

  @Test
  void aKeyWithABraceButNoTagGetsATagOfItsSlot() {
    // no valid tag (none, or an empty one) but a '}' that would end a new tag wrapped around the key
    for (String key : List.of("a}b", "{}x", "x{}", "}{", "{}", "app:{}:list", "}")) {
      int slot = SlotHash.getSlot(key);
      assertThat(RedisKeys.members(key)).isEqualTo("{" + RedisKeys.slotTag(slot) + "}" + key + ":allot:members");
      String leaseName = Tables.leaseName(key, "g:{1}");
      assertSameSlot(key, RedisKeys.members(key), RedisKeys.ownership(key), RedisKeys.counter(key),
          RedisKeys.guard(key), RedisKeys.holds(key), RedisKeys.epoch(key), RedisKeys.poolFields(key, "g:{1}"),
          RedisKeys.owners(key), RedisKeys.lease(leaseName), RedisKeys.token(leaseName));
    }
    assertThat(RedisKeys.members("a{b")).as("a '{' alone is harmless").isEqualTo("{a{b}:allot:members");
  }

  @Test
  void everySlotHasTheSmallestTagThatHashesToIt() {
    for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
      String tag = RedisKeys.slotTag(slot);
      assertThat(SlotHash.getSlot(tag)).isEqualTo(slot);
      int n = Integer.parseInt(tag.substring("allot-slot-".length()));
      if (slot % 1024 == 0) {
        for (int smaller = 0; smaller < n; smaller++) {
          assertThat(SlotHash.getSlot("allot-slot-" + smaller)).isNotEqualTo(slot);
        }
      }
    }
  }

  @Test
  void poolCompanionsIncludeTheGuardAndTheHolds() {
    assertThat(RedisKeys.guard("sys-services")).isEqualTo("{sys-services}:allot:guard");
    assertThat(RedisKeys.holds("sys-services")).isEqualTo("{sys-services}:allot:holds");
  }

  private static void assertSameSlot(String first, String... others) {
    int slot = SlotHash.getSlot(first);
    for (String k : others) {
      assertThat(SlotHash.getSlot(k)).as("slot of %s vs %s", k, first).isEqualTo(slot);
    }
  }
}
