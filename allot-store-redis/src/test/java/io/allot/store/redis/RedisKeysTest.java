package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Store;
import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key layout, checked against Lettuce's own Cluster slot function (no server needed). */
class RedisKeysTest {

  @Test
  void companionsOfThePlainSeedKeyAreHashTaggedWithIt() {
    String table = "sys-matching-table";
    assertThat(RedisKeys.epoch(table)).isEqualTo("{sys-matching-table}:allot:epoch");
    assertThat(RedisKeys.groupFields(table, "g1")).isEqualTo("{sys-matching-table}:allot:fields:g1");
    assertThat(RedisKeys.owners(table)).isEqualTo("{sys-matching-table}:allot:owners");
    String leaseName = Store.tableLeaseName(table, "g1");
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
      String leaseName = Store.tableLeaseName(table, "grp");
      assertSameSlot(table, RedisKeys.epoch(table), RedisKeys.groupFields(table, "grp"), RedisKeys.owners(table),
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
      assertSameSlot(pool, RedisKeys.members(pool), RedisKeys.ownership(pool), RedisKeys.counter(pool));
    }
  }

  @Test
  void aKeyThatCannotBeCoLocatedIsRejected() {
    // no valid tag (none, or an empty one) but a '}' that breaks wrapping the key in a new tag
    for (String table : List.of("a}b", "{}x", "x{}")) {
      if (SlotHash.getSlot(table) != SlotHash.getSlot(RedisKeys.epoch(table))) {
        assertThatThrownBy(() -> RedisKeys.checkSameSlot("publish", table, RedisKeys.epoch(table)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(table);
      }
    }
  }

  private static void assertSameSlot(String first, String... others) {
    int slot = SlotHash.getSlot(first);
    for (String k : others) {
      assertThat(SlotHash.getSlot(k)).as("slot of %s vs %s", k, first).isEqualTo(slot);
    }
  }
}
