package io.allot.spring;

import io.allot.store.Store;
import io.allot.tasks.TaskCapacity;
import io.allot.tasks.TaskHandler;
import io.allot.tasks.TaskRunner;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Long-running tasks for the application's {@link TaskHandler} bean when {@code allot.tasks.pool} is set: a
 * {@link TaskRunner} runs the handler for every task of the pool this member owns, within
 * {@code allot.tasks.capacity} (task cost). The member's other settings are {@code allot.worker.*}'s; its lifecycle
 * is the worker's (drain, then leave).
 */
@AutoConfiguration(after = AllotStoreAutoConfiguration.class)
@ConditionalOnBean(Store.class)
@ConditionalOnSingleCandidate(TaskHandler.class)
@ConditionalOnProperty(prefix = "allot.tasks", name = "pool")
public class AllotTasksAutoConfiguration {

  /** The runner of the handler over the pool {@code allot.tasks.pool}. */
  @Bean
  @ConditionalOnMissingBean
  public TaskRunner allotTaskRunner(Store store, AllotProperties properties, TaskHandler handler,
      ObjectProvider<MeterRegistry> meters) {
    AllotProperties.TaskSettings t = properties.tasks();
    int capacity = capacity(t.capacity());
    io.allot.worker.Divider.Builder member = Members.builder(store, properties.worker(), t.pool(), t.port(), capacity);
    meters.ifAvailable(member::meterRegistry);
    return TaskRunner.builder(member, handler).build();
  }

  /** Starts the runner with the context, drains and closes it on shutdown. */
  @Bean
  @ConditionalOnMissingBean(name = "allotTasksLifecycle")
  public AllotLifecycle allotTasksLifecycle(TaskRunner runner, AllotProperties properties) {
    return AllotLifecycle.member("tasks", runner.divider(), runner::start, runner::close,
        properties.worker().drainTimeout());
  }

  /** {@code auto} or a positive number. */
  static int capacity(String text) {
    if (text == null || text.equalsIgnoreCase("auto")) {
      return TaskCapacity.fromResources();
    }
    try {
      int n = Integer.parseInt(text.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("allot.tasks.capacity must be 'auto' or a positive number but was '" + text
        + "'");
  }
}
