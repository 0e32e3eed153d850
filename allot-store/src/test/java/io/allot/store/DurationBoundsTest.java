package io.allot.store;

import io.allot.store.jobs.JobLimits;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 18: the store module's Duration settings and arguments are bounded, a value out of bounds named. */
class DurationBoundsTest {
  private static final Duration FAR = Duration.ofDays(300_000); // past Duration.toNanos()'s ~292 years
  private static final Duration[] BAD = {FAR, Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1)};
  private final MemoryStore store = new MemoryStore();

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void aLeaderLeaseTtlOrMarginOutOfBoundsIsRefusedNamingIt() {
    SoftAssertions soft = new SoftAssertions();
    for (Duration bad : BAD) {
      soft.assertThatThrownBy(() -> LeaderLease.builder(store.leadership(), "n", "a").ttl(bad).build())
          .as("ttl = " + bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("ttl:");
      soft.assertThatThrownBy(() -> LeaderLease.builder(store.leadership(), "n", "a").margin(bad).build())
          .as("margin = " + bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("margin:");
    }
    soft.assertThat(LeaderLease.builder(store.leadership(), "n", "a").ttl(Duration.ofDays(1)).build()).isNotNull();
    soft.assertAll();
  }

  @Test
  void aLockTtlBackoffOrAgeOutOfBoundsIsRefusedNamingIt() {
    SoftAssertions soft = new SoftAssertions();
    for (Duration bad : BAD) {
      soft.assertThatThrownBy(() -> JobLimits.checkLockTtl(bad)).as("lockTtl = " + bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("lockTtl");
      soft.assertThatThrownBy(() -> JobLimits.checkBackoff(bad)).as("backoff = " + bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("backoff");
      soft.assertThatThrownBy(() -> JobLimits.checkAge(bad)).as("age = " + bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("age");
    }
    soft.assertThat(JobLimits.checkLockTtl(Duration.ofDays(1))).isEqualTo(86_400_000_000L);
    soft.assertThat(JobLimits.checkBackoff(Duration.ofDays(36_500))).isEqualTo(Duration.ofDays(36_500).toNanos() / 1000);
    soft.assertThat(JobLimits.checkAge(Duration.ofDays(36_500))).isEqualTo(Duration.ofDays(36_500));
    soft.assertAll();
  }

  @Test
  void theRuleNamesTheSettingTheBoundsAndTheValue() {
    SoftAssertions soft = new SoftAssertions();
    soft.assertThatThrownBy(() -> Durations.check("leaseTtl", FAR, Duration.ofMillis(1), Durations.MAX_TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("leaseTtl: must be between 1 ms and 1 day but was PT7200000H");
    soft.assertThatThrownBy(() -> Durations.check("hold", Duration.ofSeconds(-1), Duration.ZERO, Durations.MAX_HOLD))
        .hasMessage("hold: must be between 0 and 30 days but was PT-1S");
    soft.assertThatThrownBy(() -> Durations.check("every", null, Durations.POSITIVE, Duration.ofSeconds(90)))
        .hasMessage("every: must be positive and at most 90 s but was null");
    soft.assertThatThrownBy(() -> Durations.check("every", Duration.ZERO, Durations.POSITIVE, Durations.MAX_TIMEOUT))
        .hasMessageStartingWith("every: must be positive");
    soft.assertThat(Durations.check("t", Durations.MAX_TIMEOUT, Duration.ZERO, Durations.MAX_TIMEOUT))
        .isEqualTo(Duration.ofDays(1));
    soft.assertThat(Durations.MAX_DELAY.toNanos()).as("every bound fits in long nanoseconds").isPositive();
    soft.assertAll();
  }
}
