package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the divider is bounded, and a value out of bounds is refused naming it. */
class DurationBoundsTest {
  private static final Duration FAR = Duration.ofDays(300_000); // past Duration.toNanos()'s ~292 years
  private final MemoryStore store = new MemoryStore();

  @AfterEach
  void close() {
    store.close();
  }

  private static Map<String, BiFunction<Divider.Builder, Duration, Divider.Builder>> settings() {
    Map<String, BiFunction<Divider.Builder, Duration, Divider.Builder>> s = new LinkedHashMap<>();
    s.put("leaseTtl", Divider.Builder::leaseTtl);
    s.put("renewEvery", Divider.Builder::renewEvery);
    s.put("fenceMargin", Divider.Builder::fenceMargin);
    s.put("syncInterval", Divider.Builder::syncInterval);
    s.put("releaseHold", Divider.Builder::releaseHold);
    s.put("shutdownGrace", Divider.Builder::shutdownGrace);
    return s;
  }

  private Divider.Builder valid() {
    return Divider.builder(store).pool("p").host("127.0.0.1").listener(UnitListener.of(start -> {}, stop -> {}));
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    SoftAssertions soft = new SoftAssertions();
    settings().forEach((name, setter) -> {
      for (Duration bad : new Duration[] {FAR, Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1)}) {
        soft.assertThatThrownBy(() -> setter.apply(valid(), bad).build()).as(name + " = " + bad)
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(name);
      }
    });
    soft.assertAll();
  }

  @Test
  void theBoundsAreNamedAndTheLongestValuesAreAccepted() {
    Divider.Builder longest = valid().leaseTtl(Duration.ofDays(1)).renewEvery(Duration.ofHours(1))
        .fenceMargin(Duration.ofHours(1)).syncInterval(Duration.ofDays(1)).releaseHold(Duration.ofDays(30))
        .shutdownGrace(Duration.ofDays(1));
    assertThat(longest.port(7001).build().memberId()).isEqualTo("127.0.0.1:7001");
    SoftAssertions soft = new SoftAssertions();
    soft.assertThatThrownBy(() -> valid().leaseTtl(Duration.ofDays(1).plusMillis(1)).build())
        .hasMessageContainingAll("leaseTtl", "1 day", "PT24H0.001S");
    soft.assertThatThrownBy(() -> valid().releaseHold(Duration.ofDays(31)).build())
        .hasMessageContainingAll("releaseHold", "30 days");
    soft.assertAll();
  }
}
