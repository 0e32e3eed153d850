package io.allot.testkit.overlap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OwnershipLogTest {
  final AtomicLong now = new AtomicLong();
  final OwnershipLog log = new OwnershipLog(now::get);

  /** a runs u from 0 to 10 with {@code tokenA}, stops, then b starts it with {@code tokenB}. */
  private void handOff(long tokenA, long tokenB) {
    log.open("u", "a", tokenA);
    now.set(10);
    log.close("u", "a");
    log.open("u", "b", tokenB);
  }

  @Test
  void aHandoffIsClean() {
    handOff(1, 2);
    now.set(20);
    assertThat(log.running()).isEqualTo(Map.of("u", "b"));
    assertThat(log.intervals()).isEqualTo(2);
    assertThat(log.check().violations()).isEmpty();
  }

  @Test
  void aStartWhileAnotherOwnerRunsTheUnitIsAnOverlapEvenAfterBothStopped() {
    log.open("u", "a", 1);
    now.set(10);
    log.open("u", "b", 2);
    now.set(20);
    log.close("u", "a");
    log.close("u", "b");
    OverlapChecker.Report r = log.check();
    assertThat(r.overlaps()).singleElement().satisfies(o -> {
      assertThat(o.a().owner()).isEqualTo("a");
      assertThat(o.b().owner()).isEqualTo("b");
    });
  }

  @Test
  void tokensMustGrowFromOwnerToOwner() {
    handOff(5, 5);
    assertThat(log.check().violations()).singleElement().asString().contains("token 5 of b");
  }

  @Test
  void closeAllEndsEveryUnitOfAnOwnerAndAStrayCloseIsIgnored() {
    log.open("u1", "a", 1);
    log.open("u2", "a", 2);
    log.close("u3", "a");
    now.set(10);
    log.closeAll("a");
    log.open("u1", "b", 3);
    assertThat(log.running()).isEqualTo(Map.of("u1", "b"));
    assertThat(log.check().clean()).isTrue();
  }
}
