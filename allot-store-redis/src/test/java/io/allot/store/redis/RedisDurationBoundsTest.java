package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.DurationBounds;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the Redis config is bounded, and a value out of bounds is refused naming it. */
class RedisDurationBoundsTest {
  private static RedisStoreConfig.Builder valid() {
    return RedisStoreConfig.builder("h");
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    DurationBounds.of(RedisStoreConfig.Builder.class, RedisDurationBoundsTest::valid, RedisStoreConfig.Builder::build)
        .setting("reconnectDelay min", RedisDurationBoundsTest::valid,
            (b, d) -> b.reconnectDelay(d, Duration.ofDays(1)), RedisStoreConfig.Builder::build)
        .setting("reconnectDelay max", RedisDurationBoundsTest::valid,
            (b, d) -> b.reconnectDelay(Duration.ofMillis(10), d), RedisStoreConfig.Builder::build)
        .assertEverySettingBounded();
  }

  @Test
  void theLongestValuesAreAccepted() {
    assertThat(valid().connectTimeout(Duration.ofDays(1)).commandTimeout(Duration.ofDays(1))
        .reconnectDelay(Duration.ofDays(1), Duration.ofDays(1)).lostStateGuard(Duration.ofDays(30))
        .clockMargin(Duration.ofDays(1)).build().lostStateGuard()).isEqualTo(Duration.ofDays(30));
  }
}
