package io.allot.spring;

import io.allot.store.Store;
import io.allot.tasks.TaskRunner;
import io.allot.worker.Divider;
import io.allot.worker.UnitRunner;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** {@link AllotHealthIndicator} when Actuator's health support is on the class path. */
@AutoConfiguration(after = {AllotStoreAutoConfiguration.class, AllotWorkerAutoConfiguration.class,
    AllotTasksAutoConfiguration.class})
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(Store.class)
public class AllotHealthAutoConfiguration {

  /** The indicator, named {@code allot} in the health tree. */
  @Bean
  @ConditionalOnMissingBean(name = "allotHealthIndicator")
  public AllotHealthIndicator allotHealthIndicator(Store store, ObjectProvider<UnitRunner> units,
      ObjectProvider<TaskRunner> tasks) {
    Supplier<Divider> unitMember = () -> {
      UnitRunner r = units.getIfAvailable();
      return r == null ? null : r.divider();
    };
    Supplier<Divider> taskMember = () -> {
      TaskRunner r = tasks.getIfAvailable();
      return r == null ? null : r.divider();
    };
    return new AllotHealthIndicator(store, Map.of("units", unitMember, "tasks", taskMember));
  }
}
