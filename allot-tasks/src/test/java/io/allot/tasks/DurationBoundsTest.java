package io.allot.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.memory.MemoryStore;
import io.allot.worker.Divider;
import io.allot.testkit.DurationBounds;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the task runner is bounded, and a value out of bounds is refused naming it. */
class DurationBoundsTest {
  private final MemoryStore mem = new MemoryStore();

  @AfterEach
  void close() {
    mem.close();
  }

  private TaskRunner.Builder valid() {
    return TaskRunner.builder(Divider.builder(mem).pool("p").host("127.0.0.1"), run -> { });
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    DurationBounds.of(TaskRunner.Builder.class, this::valid, TaskRunner.Builder::build).assertEverySettingBounded();
  }

  @Test
  void theLongestValuesAreAccepted() {
    assertThat(valid().failureWindow(Duration.ofDays(30)).backoff(Duration.ofDays(30)).maxBackoff(Duration.ofDays(30))
        .specRefresh(Duration.ofDays(1)).build()).isNotNull();
  }
}
