package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.DurationBounds;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the PostgreSQL config is bounded, a value out of bounds refused naming it. */
class PostgresDurationBoundsTest {
  private static PostgresStoreConfig.Builder valid() {
    return PostgresStoreConfig.builder("postgresql://h/db");
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    DurationBounds.of(PostgresStoreConfig.Builder.class, PostgresDurationBoundsTest::valid,
            PostgresStoreConfig.Builder::build)
        .setting("reconnectDelayMin", PostgresDurationBoundsTest::valid,
            (b, d) -> b.reconnectDelay(d, Duration.ofDays(1)), PostgresStoreConfig.Builder::build)
        .setting("reconnectDelayMax", PostgresDurationBoundsTest::valid,
            (b, d) -> b.reconnectDelay(Duration.ofMillis(50), d), PostgresStoreConfig.Builder::build)
        .assertEverySettingBounded();
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
