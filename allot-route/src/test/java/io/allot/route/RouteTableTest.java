package io.allot.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A published table turned around for routing: decoded by the Tables role, one owner per unit. */
class RouteTableTest {

  @Test
  void readsTheTableThroughTheTablesRole() {
    try (MemoryStore store = new MemoryStore()) {
      Lease lease = store.leadership().tryAcquire(Tables.leaseName("t", "p"), "d", Duration.ofSeconds(30))
          .orElseThrow();
      store.tables().publish(lease, "t", "p", Map.of("10.0.0.1:1", "u1,,u2", "10.0.0.2:1", "", "10.0.0.3:1", " u3"));
      RouteTable table = RouteTable.read(store.tables(), "t");
      assertThat(table.epoch()).isEqualTo(1);
      assertThat(table.owners()).isEqualTo(Map.of("u1", "10.0.0.1:1", "u2", "10.0.0.1:1", " u3", "10.0.0.3:1"));
      assertThat(table.ownerOf("u3")).as("nothing trimmed").isNull();
    }
  }

  /**
   * A unit listed under two members goes to the first in byte order (UTF-8), as the distributor reads it: the member
   * "\uFF01" before a member with a character above U+FFFF, although {@link String#compareTo} orders them the other
   * way round.
   */
  @Test
  void aUnitListedTwiceGoesToTheFirstMemberInByteOrder() {
    String bmp = "\uFF01:1";
    String astral = "\uD83D\uDE00:1";
    RouteTable table = RouteTable.fromUnits("t", 3, Map.of(astral, List.of("u", "v"), bmp, List.of("u")));
    assertThat(table.ownerOf("u")).isEqualTo(bmp);
    assertThat(table.ownerOf("v")).isEqualTo(astral);
    assertThat(table.size()).isEqualTo(2);
  }
}
