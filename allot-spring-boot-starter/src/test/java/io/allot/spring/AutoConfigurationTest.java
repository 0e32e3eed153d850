package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.jobs.JobHandler;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.metrics.StoreMeters;
import io.allot.tasks.TaskHandler;
import io.allot.tasks.TaskRunner;
import io.allot.worker.Divider;
import io.allot.worker.UnitHandler;
import io.allot.worker.UnitRunner;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Each condition of the auto-configuration, on the memory store: what starts, and what backs off. */
class AutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AllotStoreAutoConfiguration.class, AllotWorkerAutoConfiguration.class,
          AllotJobsAutoConfiguration.class, AllotTasksAutoConfiguration.class, AllotHealthAutoConfiguration.class))
      .withPropertyValues("allot.worker.host=127.0.0.1", "allot.worker.drain-timeout=0s");

  @Configuration(proxyBeanMethods = false)
  static class Handlers {
    @Bean
    UnitHandler unitHandler() {
      return unit -> unit.awaitStop(java.time.Duration.ofMinutes(1));
    }

    @Bean
    TaskHandler taskHandler() {
      return task -> task.awaitStop(java.time.Duration.ofMinutes(1));
    }

    @Bean
    JobHandler mailer() {
      return job -> { };
    }

    @Bean
    @JobQueueName("annotated-queue")
    JobHandler annotated() {
      return job -> { };
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnStore {
    @Bean(destroyMethod = "close")
    Store myStore() {
      return Stores.open("memory:");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRunner {
    @Bean
    UnitRunner myRunner(Store store) {
      return UnitRunner.builder(Divider.builder(store).pool("mine").host("127.0.0.1").build(), unit -> { }).build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Meters {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Test
  void withoutAStoreNothingOfAllotStarts() {
    runner.withUserConfiguration(Handlers.class).withPropertyValues("allot.worker.pool=p", "allot.tasks.pool=t")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx).doesNotHaveBean(Store.class).doesNotHaveBean(UnitRunner.class)
              .doesNotHaveBean(AllotJobWorkers.class).doesNotHaveBean(TaskRunner.class)
              .doesNotHaveBean(AllotHealthIndicator.class);
        });
  }

  @Test
  void theStoreComesFromAllotStoreAndNothingRunsWithoutHandlers() {
    runner.withPropertyValues("allot.store=memory:", "allot.worker.pool=p", "allot.tasks.pool=t").run(ctx -> {
      assertThat(ctx).hasSingleBean(Store.class).hasBean("allotStore").hasSingleBean(AllotHealthIndicator.class);
      assertThat(ctx).doesNotHaveBean(UnitRunner.class).doesNotHaveBean(AllotJobWorkers.class)
          .doesNotHaveBean(TaskRunner.class);
      assertThat(ctx.getBean(AllotHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
    });
  }

  @Test
  void withAMeterRegistryTheStoreIsMeteredAndWithoutItNot() {
    runner.withUserConfiguration(Meters.class).withPropertyValues("allot.store=memory:").run(ctx -> {
      Store store = ctx.getBean(Store.class);
      assertThat(store).isInstanceOf(StoreMeters.class);
      store.membership("metered").members();
      assertThat(ctx.getBean(MeterRegistry.class).find(StoreMeters.ROUND_TRIP).tag("op", "membership.members")
          .tag("outcome", "ok").timer().count()).isEqualTo(1);
    });
    runner.withPropertyValues("allot.store=memory:").run(ctx ->
        assertThat(ctx.getBean(Store.class)).isNotInstanceOf(StoreMeters.class));
  }

  @Test
  void theApplicationsStoreWinsAndAllotStoreIsNotOpened() {
    // a URI no provider serves: opening it would fail the context
    runner.withUserConfiguration(OwnStore.class).withPropertyValues("allot.store=nosuch://x").run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(Store.class).hasBean("myStore").doesNotHaveBean("allotStore");
    });
  }

  @Test
  void aBadStoreUriFailsTheStartNamingIt() {
    runner.withPropertyValues("allot.store=nosuch://x").run(ctx ->
        assertThat(ctx).getFailure().rootCause().hasMessageContaining("nosuch://x").hasMessageContaining("memory:"));
  }

  @Test
  void handlersWithPoolsStartAWorkerJobWorkersAndATaskRunner() {
    runner.withUserConfiguration(Handlers.class, Meters.class)
        .withPropertyValues("allot.store=memory:", "allot.worker.pool=units", "allot.tasks.pool=tasks",
            "allot.tasks.capacity=7", "allot.worker.affinity=3", "allot.jobs.mailer.queue=emails",
            "allot.jobs.mailer.concurrency=2")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed().hasSingleBean(UnitRunner.class).hasSingleBean(TaskRunner.class)
              .hasSingleBean(AllotJobWorkers.class).hasBean("allotWorkerLifecycle").hasBean("allotJobsLifecycle")
              .hasBean("allotTasksLifecycle");
          Divider units = ctx.getBean(UnitRunner.class).divider();
          assertThat(units.affinity()).isEqualTo(3);
          assertThat(ctx.getBean(TaskRunner.class).divider().capacity()).isEqualTo(7);
          assertThat(ctx.getBean(AllotJobWorkers.class).queues())
              .containsEntry("mailer", "emails").containsEntry("annotated", "annotated-queue");
          assertThat(ctx.getBean("allotWorkerLifecycle", AllotLifecycle.class).isRunning()).isTrue();
          MeterRegistry meters = ctx.getBean(MeterRegistry.class);
          assertThat(meters.find("allot.worker.units").tag("pool", "units").gauge()).isNotNull();
          assertThat(meters.find("allot.worker.lease.valid").tag("pool", "tasks").gauge()).isNotNull();
          assertThat(meters.find("allot.jobs.in.flight").tag("queue", "emails").gauge()).isNotNull();
        });
  }

  @Test
  void theQueueIsTheBeanNameWithoutPropertyOrAnnotation() {
    runner.withUserConfiguration(Handlers.class).withPropertyValues("allot.store=memory:").run(ctx ->
        assertThat(ctx.getBean(AllotJobWorkers.class).queues()).containsEntry("mailer", "mailer"));
  }

  @Test
  void withoutAPoolThereIsNoWorkerAndNoTaskRunner() {
    runner.withUserConfiguration(Handlers.class).withPropertyValues("allot.store=memory:").run(ctx ->
        assertThat(ctx).hasNotFailed().doesNotHaveBean(UnitRunner.class).doesNotHaveBean(TaskRunner.class)
            .hasSingleBean(AllotJobWorkers.class));
  }

  @Test
  void twoUnitHandlersStartNoWorker() {
    runner.withUserConfiguration(Handlers.class)
        .withBean("second", UnitHandler.class, () -> unit -> { })
        .withPropertyValues("allot.store=memory:", "allot.worker.pool=units").run(ctx ->
            assertThat(ctx).hasNotFailed().doesNotHaveBean(UnitRunner.class));
  }

  @Test
  void theApplicationsUnitRunnerWins() {
    runner.withUserConfiguration(OwnStore.class, Handlers.class, OwnRunner.class)
        .withPropertyValues("allot.worker.pool=units").run(ctx -> {
          assertThat(ctx).hasNotFailed().doesNotHaveBean("allotUnitRunner").hasSingleBean(UnitRunner.class);
          assertThat(ctx.getBean(UnitRunner.class).divider().toString()).contains("mine");
        });
  }

  @Test
  void aJobSettingForNoHandlerFailsTheStartNamingIt() {
    runner.withUserConfiguration(Handlers.class)
        .withPropertyValues("allot.store=memory:", "allot.jobs.mailr.queue=emails").run(ctx ->
            assertThat(ctx).getFailure().rootCause().hasMessageContaining("allot.jobs.mailr")
                .hasMessageContaining("mailer"));
  }

  @Test
  void aBadTaskCapacityFailsTheStartNamingIt() {
    runner.withUserConfiguration(Handlers.class)
        .withPropertyValues("allot.store=memory:", "allot.tasks.pool=t", "allot.tasks.capacity=lots").run(ctx ->
            assertThat(ctx).getFailure().rootCause().hasMessageContaining("allot.tasks.capacity"));
  }

  @Test
  void withoutActuatorThereIsNoHealthIndicator() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .withPropertyValues("allot.store=memory:").run(ctx ->
            assertThat(ctx).hasNotFailed().hasSingleBean(Store.class).doesNotHaveBean("allotHealthIndicator"));
  }
}
