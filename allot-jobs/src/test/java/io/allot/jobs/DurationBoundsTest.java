package io.allot.jobs;

import io.allot.store.jobs.JobQueue;
import io.allot.store.memory.MemoryJobQueues;
import io.allot.testkit.DurationBounds;
import java.time.Duration;
import java.util.function.Consumer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the job clients is bounded, and a value out of bounds is refused naming it. */
class DurationBoundsTest {
  private final JobQueue queue = new MemoryJobQueues(() -> System.nanoTime() / 1000, Duration.ofMillis(50))
      .queue("bounds");

  private JobWorker.Builder worker() {
    return JobWorker.builder(queue, job -> { });
  }

  private JobDispatcher.Builder dispatcher() {
    return JobDispatcher.builder(queue, EndpointSource.fixed("127.0.0.1:1"));
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    DurationBounds.of(JobWorker.Builder.class, this::worker, JobWorker.Builder::build).assertEverySettingBounded();
    DurationBounds.of(JobDispatcher.Builder.class, this::dispatcher, JobDispatcher.Builder::build)
        .assertEverySettingBounded();
    DurationBounds.none()
        .setting("backoff initial", d -> new Backoff(d, 2.0, Duration.ofDays(30)))
        .setting("backoff max", d -> new Backoff(Duration.ZERO, 2.0, d))
        .assertEverySettingBounded();
  }

  @Test
  void theLongestValuesAreAccepted() {
    Consumer<Object> built = o -> { };
    built.accept(worker().lockTtl(Duration.ofDays(1)).drainTimeout(Duration.ofDays(1))
        .pollInterval(Duration.ofDays(1)).backoff(Backoff.fixed(Duration.ofDays(30))).build());
    built.accept(dispatcher().lockTtl(Duration.ofDays(1)).drainTimeout(Duration.ofDays(1))
        .leaseTtl(Duration.ofDays(1)).heartbeat(Duration.ofDays(1)).pollInterval(Duration.ofDays(1)).build());
    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(Backoff.fixed(Duration.ofDays(30)).after(Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(30));
    soft.assertThatThrownBy(() -> worker().lockTtl(Duration.ofDays(2)))
        .hasMessageContainingAll("lockTtl", "30 ms", "1 day", "PT48H");
    soft.assertAll();
  }
}
