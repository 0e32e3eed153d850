package io.allot.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TaskCapacityTest {
  private static final long MIB = 1024L * 1024L;

  @Test
  void theSmallerOfTheCpuAndTheHeapBound() {
    assertThat(TaskCapacity.of(2, 4096 * MIB, 100, 8)).isEqualTo(200); // cpu-bound
    assertThat(TaskCapacity.of(16, 512 * MIB, 100, 8)).isEqualTo(64); // heap-bound
    assertThat(TaskCapacity.of(0, 1 * MIB, 100, 8)).isEqualTo(1); // never below 1
    assertThat(TaskCapacity.of(4, Long.MAX_VALUE, 100, 8)).isEqualTo(400);
    assertThat(TaskCapacity.fromResources()).isPositive();
    assertThatThrownBy(() -> TaskCapacity.of(1, MIB, 0, 8)).hasMessageContaining("perCpu");
  }
}
