package io.allot.spring;

import io.allot.jobs.JobHandler;
import io.allot.tasks.TaskHandler;
import io.allot.worker.UnitHandler;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** An application with one handler of each kind, recording what they ran in {@link Seen}. */
@SpringBootConfiguration
@EnableAutoConfiguration
class StarterTestApp {

  /** What the handlers ran; thread-safe collections. */
  static final class Seen {
    final Set<String> unitsRunning = ConcurrentHashMap.newKeySet();
    final Set<String> unitsStopped = ConcurrentHashMap.newKeySet();
    final Map<String, Long> jobsDone = new ConcurrentHashMap<>();
    final Map<String, String> tasksRunning = new ConcurrentHashMap<>();
  }

  @Bean
  Seen seen() {
    return new Seen();
  }

  @Bean
  UnitHandler unitHandler(Seen seen) {
    return unit -> {
      seen.unitsRunning.add(unit.unit());
      try {
        while (!unit.stopRequested()) {
          unit.awaitStop(Duration.ofSeconds(1));
        }
      } finally {
        seen.unitsRunning.remove(unit.unit());
        seen.unitsStopped.add(unit.unit());
      }
    };
  }

  @Bean
  JobHandler mailer(Seen seen) {
    return job -> seen.jobsDone.put(job.key(), job.token());
  }

  @Bean
  TaskHandler observer(Seen seen) {
    return task -> {
      seen.tasksRunning.put(task.name(), task.args());
      try {
        while (!task.stopRequested()) {
          task.awaitStop(Duration.ofSeconds(1));
        }
      } finally {
        seen.tasksRunning.remove(task.name());
      }
    };
  }
}
