package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the PostgreSQL config is bounded, a value out of bounds refused naming it. */
class PostgresDurationBoundsTest {
  private static final Duration FAR = Duration.ofDays(300_000); // past Duration.toNanos()'s ~292 years

  private static PostgresStoreConfig.Builder valid() {
    return PostgresStoreConfig.builder("postgresql://h/db");
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    Map<String, BiFunction<PostgresStoreConfig.Builder, Duration, PostgresStoreConfig.Builder>> s =
        new LinkedHashMap<>();
    s.put("connectionTimeout", PostgresStoreConfig.Builder::connectionTimeout);
    s.put("connectTimeout", PostgresStoreConfig.Builder::connectTimeout);
    s.put("socketTimeout", PostgresStoreConfig.Builder::socketTimeout);
    s.put("subscribeTimeout", PostgresStoreConfig.Builder::subscribeTimeout);
    s.put("listenerPoll", PostgresStoreConfig.Builder::listenerPoll);
    s.put("listenerPing", PostgresStoreConfig.Builder::listenerPing);
    s.put("reconnectDelayMin", (b, d) -> b.reconnectDelay(d, Duration.ofDays(1)));
    s.put("reconnectDelayMax", (b, d) -> b.reconnectDelay(Duration.ofMillis(50), d));
    s.put("lostStateGuard", PostgresStoreConfig.Builder::lostStateGuard);
    s.put("clockMargin", PostgresStoreConfig.Builder::clockMargin);
    SoftAssertions soft = new SoftAssertions();
    s.forEach((name, setter) -> {
      for (Duration bad : new Duration[] {FAR, Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1)}) {
        soft.assertThatThrownBy(() -> setter.apply(valid(), bad).build())
            .as(name + " = " + bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(name);
      }
    });
    soft.assertAll();
  }

  @Test
  void theLongestValuesAreAccepted() {
    PostgresStoreConfig c = valid().connectionTimeout(Duration.ofDays(1)).connectTimeout(Duration.ofDays(1))
        .socketTimeout(Duration.ofDays(1)).subscribeTimeout(Duration.ofDays(1)).listenerPoll(Duration.ofDays(1))
        .listenerPing(Duration.ofDays(1)).reconnectDelay(Duration.ofDays(1), Duration.ofDays(1))
        .lostStateGuard(Duration.ofDays(30)).clockMargin(Duration.ofDays(1)).build();
    assertThat(c.statementTimeout()).isEqualTo(Duration.ofSeconds(86_400 - 8_640));
  }
}
