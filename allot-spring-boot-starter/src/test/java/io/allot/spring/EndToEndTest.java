package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.tasks.TaskRunner;
import io.allot.testkit.FakeDistributor;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import io.allot.worker.UnitRunner;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@link StarterTestApp} started as an application on the real Redis and PostgreSQL: the store comes from
 * {@code allot.store}, the worker runs the units a (fake) distributor gives it, the job worker finishes the queue's
 * jobs, the task runner runs the pool's task with its arguments, the health is UP; closing the context stops every
 * unit and task, releases them and leaves the pool. Pool, hash and queue names are the test's own (Redis), and so is
 * the schema (PostgreSQL).
 */
class EndToEndTest {
  static final PostgresSchema SCHEMA = PostgresSchema.create("spring");

  @AfterAll
  static void dropSchema() {
    SCHEMA.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"redis", "postgresql"})
  void runsUnitsJobsAndTasksThenLeavesOnClose(String kind) {
    String uri = kind.equals("redis") ? TestServers.redisUri() : SCHEMA.uri();
    String id = UUID.randomUUID().toString().substring(0, 8);
    String pool = "spring-units-" + id;
    String taskPool = "spring-tasks-" + id;
    String hash = "spring-table-" + id;
    String queue = "spring-mail-" + id;
    ConfigurableApplicationContext context = new SpringApplicationBuilder(StarterTestApp.class).properties(
        "allot.store=" + uri,
        "allot.worker.pool=" + pool,
        "allot.worker.host=127.0.0.1",
        "allot.worker.distribution-namespace=" + hash,
        "allot.worker.drain-timeout=0s",
        "allot.tasks.pool=" + taskPool,
        "allot.tasks.capacity=10",
        "allot.jobs.mailer.queue=" + queue,
        "allot.jobs.mailer.poll-interval=50ms").run();
    StarterTestApp.Seen seen = context.getBean(StarterTestApp.Seen.class);
    Store store = context.getBean(Store.class);
    UnitRunner units = context.getBean(UnitRunner.class);
    TaskRunner tasks = context.getBean(TaskRunner.class);
    String member;
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> units.divider().leaseValid() && tasks.divider().leaseValid());
      member = units.divider().memberId();
      new FakeDistributor(store, hash, pool).publish(member, "u1,u2");
      store.jobQueue(queue).enqueue(List.of(NewJob.of("j1", "{}"), NewJob.of("j2", "{}")));
      store.taskSpecs(taskPool).create("t1", "{\"venue\":\"x\"}", 1);
      new FakeDistributor(store, hash, taskPool).publish(tasks.divider().memberId(), "t1");

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(seen.unitsRunning).containsExactlyInAnyOrder("u1", "u2");
        assertThat(seen.jobsDone).containsOnlyKeys("j1", "j2");
        assertThat(store.jobQueue(queue).get("j1").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(store.jobQueue(queue).get("j2").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
        assertThat(seen.tasksRunning).containsEntry("t1", "{\"venue\":\"x\"}");
      });
      assertThat(units.divider().assigned()).containsOnlyKeys("u1", "u2");
      assertThat(context.getBean("allotHealthIndicator", HealthIndicator.class).health().getStatus())
          .isEqualTo(Status.UP);
    } finally {
      context.close();
    }
    assertThat(seen.unitsRunning).isEmpty();
    assertThat(seen.unitsStopped).containsExactlyInAnyOrder("u1", "u2");
    assertThat(seen.tasksRunning).isEmpty();
    try (Store check = Stores.open(uri)) {
      assertThat(check.ownership(pool).owners()).as("units released").isEmpty();
      assertThat(check.ownership(taskPool).owners()).as("tasks released").isEmpty();
      assertThat(check.membership(pool).members()).as("member left").doesNotContainKey(member);
    }
  }
}
