package io.allot.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GoDurationTest {
  @Test
  void parsesGoDurations() {
    assertThat(GoDuration.parse("500ms", "x")).isEqualTo(Duration.ofMillis(500));
    assertThat(GoDuration.parse("2s", "x")).isEqualTo(Duration.ofSeconds(2));
    assertThat(GoDuration.parse("1m30s", "x")).isEqualTo(Duration.ofSeconds(90));
    assertThat(GoDuration.parse("1.5h", "x")).isEqualTo(Duration.ofMinutes(90));
    assertThat(GoDuration.parse("250us", "x")).isEqualTo(Duration.ofNanos(250_000));
    assertThat(GoDuration.parse("0", "x")).isEqualTo(Duration.ZERO);
    assertThat(GoDuration.parse("1000ms", "x")).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void rejectsWhatGoRejectsNamingTheFlag() {
    for (String bad : new String[] {"", "5", "1x", "ms", "1.2.3s", "--1s", "1s2"}) {
      assertThatThrownBy(() -> GoDuration.parse(bad, "-poll-interval"))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("-poll-interval");
    }
    assertThatThrownBy(() -> GoDuration.parsePositive("0", "-ping-timeout")).hasMessageContaining("greater than 0");
  }
}
