package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The shared check of issue 18's rule finds every one-Duration setter and fails on each that lets a bad value by. */
class DurationBoundsTest {
  /** A builder with one bounded setting, one that accepts anything, and one that refuses without naming itself. */
  public static final class Builder {
    private Duration ttl = Duration.ofSeconds(1);

    public Builder ttl(Duration d) {
      if (d.isNegative() || d.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException("ttl: must be between 0 and 1 day but was " + d);
      }
      ttl = d;
      return this;
    }

    public Builder loose(Duration d) {
      return this;
    }

    public Builder unnamed(Duration d) {
      throw new IllegalArgumentException("bad value " + d);
    }

    public Duration build() {
      return ttl;
    }
  }

  @Test
  void everyOneDurationSetterIsFoundAndEachMissIsListed() {
    DurationBounds bounds = DurationBounds.of(Builder.class, Builder::new, Builder::build);
    assertThat(bounds.names()).containsExactly("loose", "ttl", "unnamed");
    assertThatThrownBy(bounds::assertEverySettingBounded).isInstanceOf(AssertionError.class)
        .hasMessageContaining("6 out-of-bounds durations not refused")
        .hasMessageContaining("loose = PT7200000H: accepted")
        .hasMessageContaining("unnamed = PT-0.001S: refused, but the message does not start with the name")
        .hasMessageNotContaining("ttl =");
  }

  @Test
  void aBoundedSettingPassesAndNoSettingsIsAFailure() {
    DurationBounds.none().setting("ttl", Builder::new, Builder::ttl, Builder::build).assertEverySettingBounded();
    assertThatThrownBy(() -> DurationBounds.none().assertEverySettingBounded()).hasMessage("no settings to check");
    assertThatThrownBy(() -> DurationBounds.of(Object.class, Object::new, o -> o))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no public one-Duration setter");
  }
}
