package io.allot.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.spring.AllotJobWorkers;
import io.allot.spring.AllotProperties;
import io.allot.store.Store;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.tasks.TaskSpec;
import io.allot.tasks.TaskRunner;
import io.allot.testkit.FakeDistributor;
import io.allot.worker.Divider;
import io.allot.worker.UnitRunner;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The sample application, started by {@code @SpringBootTest}: its unit handler runs the units a (fake) distributor
 * gives its member, its job handler finishes a job of its queue, its task handler runs a task of its
 * pool (the store records the start).
 */
abstract class SampleScenario {
  @Autowired Store store;
  @Autowired AllotProperties properties;
  @Autowired UnitRunner units;
  @Autowired TaskRunner tasks;
  @Autowired AllotJobWorkers jobs;

  @Test
  void runsAUnitAJobAndATask() {
    Divider member = units.divider();
    Divider taskMember = tasks.divider();
    await().atMost(Duration.ofSeconds(20)).until(() -> member.leaseValid() && taskMember.leaseValid());
    String hash = properties.worker().distributionNamespace() != null ? properties.worker().distributionNamespace()
        : Divider.DEFAULT_DISTRIBUTION;
    String job = "welcome-" + UUID.randomUUID();
    String emails = jobs.queues().get("mailer");
    new FakeDistributor(store, hash, properties.worker().pool()).publish(member.memberId(), "site-1");
    store.jobQueue(emails).enqueue(NewJob.of(job, "{\"to\":\"ada@example.org\"}"));
    store.taskSpecs(properties.tasks().pool()).create("ticker.BTC-USD", "{\"venue\":\"x\"}", 1);
    new FakeDistributor(store, hash, properties.tasks().pool()).publish(taskMember.memberId(), "ticker.BTC-USD");

    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      assertThat(units.running()).containsExactly("site-1");
      assertThat(store.jobQueue(emails).get(job).orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
      TaskSpec task = store.taskSpecs(properties.tasks().pool()).get("ticker.BTC-USD").orElseThrow();
      assertThat(task.run()).isNotNull();
      assertThat(task.run().member()).isEqualTo(taskMember.memberId());
    });
  }
}
