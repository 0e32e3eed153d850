package io.allot.spring;

import io.allot.jobs.JobHandler;
import io.allot.store.Store;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Job workers for the application's {@link JobHandler} beans, one per bean and queue (see {@link AllotJobWorkers}),
 * with the application's {@link MeterRegistry} when it has one. Started with the context; on shutdown each stops
 * claiming and lets its running handlers finish within {@code allot.jobs.<bean>.drain-timeout} (20 s).
 */
@AutoConfiguration(after = AllotStoreAutoConfiguration.class)
@ConditionalOnBean({Store.class, JobHandler.class})
public class AllotJobsAutoConfiguration {

  /** The workers. */
  @Bean
  @ConditionalOnMissingBean
  public AllotJobWorkers allotJobWorkers(Store store, AllotProperties properties, ListableBeanFactory beans,
      ObjectProvider<MeterRegistry> meters) {
    return new AllotJobWorkers(store, properties, beans, meters.getIfAvailable());
  }

  /** Starts the workers with the context, drains and closes them on shutdown. */
  @Bean
  @ConditionalOnMissingBean(name = "allotJobsLifecycle")
  public AllotLifecycle allotJobsLifecycle(AllotJobWorkers workers) {
    return new AllotLifecycle("jobs", workers::start, workers::close);
  }
}
