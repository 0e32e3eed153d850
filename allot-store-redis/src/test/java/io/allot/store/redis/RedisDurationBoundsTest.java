package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the Redis config is bounded, and a value out of bounds is refused naming it. */
class RedisDurationBoundsTest {
  private static final Duration FAR = Duration.ofDays(300_000); // past Duration.toNanos()'s ~292 years

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    Map<String, BiFunction<RedisStoreConfig.Builder, Duration, RedisStoreConfig.Builder>> s = new LinkedHashMap<>();
    s.put("connectTimeout", RedisStoreConfig.Builder::connectTimeout);
    s.put("commandTimeout", RedisStoreConfig.Builder::commandTimeout);
    s.put("reconnectDelay min", (b, d) -> b.reconnectDelay(d, Duration.ofDays(1)));
    s.put("reconnectDelay max", (b, d) -> b.reconnectDelay(Duration.ofMillis(10), d));
    s.put("lostStateGuard", RedisStoreConfig.Builder::lostStateGuard);
    s.put("clockMargin", RedisStoreConfig.Builder::clockMargin);
    SoftAssertions soft = new SoftAssertions();
    s.forEach((name, setter) -> {
      for (Duration bad : new Duration[] {FAR, Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1)}) {
        soft.assertThatThrownBy(() -> setter.apply(RedisStoreConfig.builder("h"), bad).build())
            .as(name + " = " + bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(name);
      }
    });
    soft.assertAll();
  }

  @Test
  void theLongestValuesAreAccepted() {
    assertThat(RedisStoreConfig.builder("h").connectTimeout(Duration.ofDays(1)).commandTimeout(Duration.ofDays(1))
        .reconnectDelay(Duration.ofDays(1), Duration.ofDays(1)).lostStateGuard(Duration.ofDays(30))
        .clockMargin(Duration.ofDays(1)).build().lostStateGuard()).isEqualTo(Duration.ofDays(30));
  }
}
