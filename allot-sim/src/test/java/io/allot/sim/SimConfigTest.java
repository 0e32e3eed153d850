package io.allot.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.worker.Divider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimConfigTest {

  @Test
  void aBadSettingIsNamed() {
    assertThatThrownBy(() -> SimConfig.builder().members(0).build()).hasMessageContaining("members");
    assertThatThrownBy(() -> SimConfig.builder().strategy("nope").build()).hasMessageContaining("nope");
    assertThatThrownBy(() -> SimConfig.builder()
        .lease(Divider.DEFAULT_LEASE_TTL, Divider.DEFAULT_RENEW_EVERY, Duration.ofSeconds(2)).build())
        .hasMessageContaining("fenceMargin");
    assertThatThrownBy(() -> SimConfig.builder()
        .lease(Divider.DEFAULT_LEASE_TTL, Duration.ofSeconds(1), Divider.DEFAULT_FENCE_MARGIN).build())
        .hasMessageContaining("renewEvery");
    assertThatThrownBy(() -> SimConfig.builder().lossRate(1).build()).hasMessageContaining("lossRate");
    assertThatThrownBy(() -> SimConfig.builder().clockMargin(Duration.ofMillis(-1)).build())
        .hasMessageContaining("clockMargin");
    assertThatThrownBy(() -> SimConfig.builder().hole(null).build()).hasMessageContaining("hole");
  }

  @Test
  void eachHoleRevertsOneFix() {
    SimConfig d = SimConfig.defaults();
    assertThat(SimConfig.forHole(Hole.NONE)).isEqualTo(d);
    assertThat(SimConfig.forHole(Hole.LOST_STATE_GUARD).lostStateGuard()).isZero();
    assertThat(SimConfig.forHole(Hole.CLOCK_MARGIN).clockMargin()).isZero();
    assertThat(SimConfig.forHole(Hole.CANCEL_AFTER_FENCE).toBuilder().hole(Hole.NONE).build()).isEqualTo(d);
    assertThat(SimConfig.forHole(Hole.CLOCK_MARGIN).maxClockStep()).isEqualTo(d.maxClockStep());
  }
}
