package io.allot.sample;

import io.allot.jobs.JobHandler;
import io.allot.spring.JobQueueName;
import io.allot.tasks.TaskHandler;
import io.allot.worker.UnitHandler;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The README's Spring Boot example, kept compiled and started by {@code SampleApplicationTest}. */
@SpringBootApplication
public class SampleApplication {
  private static final Logger log = LoggerFactory.getLogger(SampleApplication.class);

  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }

  @Bean
  UnitHandler scraper() {                          // runs each unit this member owns in allot.worker.pool
    return unit -> {
      while (!unit.stopRequested()) {
        log.info("scraping {} with token {}", unit.unit(), unit.token());
        unit.awaitStop(Duration.ofSeconds(5));
      }
    };
  }

  @Bean
  @JobQueueName("emails")
  JobHandler mailer() {                            // each job of the queue "emails", once; throw to retry
    return job -> log.info("sending {} {}", job.key(), job.data());
  }

  @Bean
  TaskHandler observer() {                         // each long-running task of allot.tasks.pool it owns
    return task -> {
      log.info("observing {} with {}", task.name(), task.args());
      while (!task.stopRequested()) {
        task.awaitStop(Duration.ofMinutes(1));     // until deleted, moved or shut down
      }
    };
  }
}
