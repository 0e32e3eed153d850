package io.allot.jobs;

import io.allot.store.jobs.JobQueue;
import io.allot.store.memory.MemoryJobQueues;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/** Issue 18: every Duration setting of the job clients is bounded, and a value out of bounds is refused naming it. */
class DurationBoundsTest {
  private static final Duration FAR = Duration.ofDays(300_000); // past Duration.toNanos()'s ~292 years
  private static final Duration[] BAD = {FAR, Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(-1)};
  private final JobQueue queue = new MemoryJobQueues(() -> System.nanoTime() / 1000, Duration.ofMillis(50))
      .queue("bounds");

  private Map<String, Function<Duration, Object>> settings() {
    Map<String, Function<Duration, Object>> s = new LinkedHashMap<>();
    s.put("lockTtl", d -> worker().lockTtl(d).build());
    s.put("drainTimeout", d -> worker().drainTimeout(d).build());
    s.put("pollInterval", d -> worker().pollInterval(d).build());
    s.put("lockTtl ", d -> dispatcher().lockTtl(d).build());
    s.put("drainTimeout ", d -> dispatcher().drainTimeout(d).build());
    s.put("leaseTtl", d -> dispatcher().leaseTtl(d).build());
    s.put("heartbeat", d -> dispatcher().heartbeat(d).build());
    s.put("pollInterval ", d -> dispatcher().pollInterval(d).build());
    s.put("backoff initial", d -> new Backoff(d, 2.0, Duration.ofDays(30)));
    s.put("backoff max", d -> new Backoff(Duration.ZERO, 2.0, d));
    return s;
  }

  private JobWorker.Builder worker() {
    return JobWorker.builder(queue, job -> { });
  }

  private JobDispatcher.Builder dispatcher() {
    return JobDispatcher.builder(queue, EndpointSource.fixed("127.0.0.1:1"));
  }

  @Test
  void aDurationPastItsBoundOrNegativeIsRefusedNamingTheSetting() {
    SoftAssertions soft = new SoftAssertions();
    settings().forEach((name, set) -> {
      for (Duration bad : BAD) {
        soft.assertThatThrownBy(() -> set.apply(bad)).as(name.trim() + " = " + bad)
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(name.trim());
      }
    });
    soft.assertAll();
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
