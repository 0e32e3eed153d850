package io.allot.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.memory.MemoryStore;
import io.allot.worker.Divider;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the task runner is bounded, and a value out of bounds is refused naming it. */
class DurationBoundsTest {
  private static final Duration FAR = Duration.ofDays(300_000); // past Duration.toNanos()'s ~292 years
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
    Map<String, BiFunction<TaskRunner.Builder, Duration, TaskRunner.Builder>> settings = new LinkedHashMap<>();
    settings.put("failureWindow", TaskRunner.Builder::failureWindow);
    settings.put("backoff", (b, d) -> b.backoff(d).maxBackoff(Duration.ofDays(30)));
    settings.put("maxBackoff", TaskRunner.Builder::maxBackoff);
    settings.put("specRefresh", TaskRunner.Builder::specRefresh);
    SoftAssertions soft = new SoftAssertions();
    settings.forEach((name, setter) -> {
      for (Duration bad : new Duration[] {FAR, Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1)}) {
        soft.assertThatThrownBy(() -> setter.apply(valid(), bad).build()).as(name + " = " + bad)
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(name);
      }
    });
    soft.assertAll();
  }

  @Test
  void theLongestValuesAreAccepted() {
    assertThat(valid().failureWindow(Duration.ofDays(30)).backoff(Duration.ofDays(30)).maxBackoff(Duration.ofDays(30))
        .specRefresh(Duration.ofDays(1)).build()).isNotNull();
  }
}
