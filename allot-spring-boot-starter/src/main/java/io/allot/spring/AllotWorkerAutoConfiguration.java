package io.allot.spring;

import io.allot.store.Store;
import io.allot.worker.Divider;
import io.allot.worker.UnitHandler;
import io.allot.worker.UnitRunner;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * A worker for the application's {@link UnitHandler} bean when {@code allot.worker.pool} is set: a {@link Divider}
 * (one member of the pool, pings on its own port {@code allot.worker.port}) and a {@link UnitRunner} running the
 * handler for every unit the member owns. Started with the context; on shutdown it drains (affinity 0, every unit
 * handed over, for at most {@code allot.worker.drain-timeout}), then leaves ({@code SHUTDOWN} stops within
 * {@code allot.worker.shutdown-grace}).
 */
@AutoConfiguration(after = AllotStoreAutoConfiguration.class)
@ConditionalOnBean(Store.class)
@ConditionalOnSingleCandidate(UnitHandler.class)
@ConditionalOnProperty(prefix = "allot.worker", name = "pool")
public class AllotWorkerAutoConfiguration {

  /** The runner of the handler, over a divider built from {@code allot.worker.*}. */
  @Bean
  @ConditionalOnMissingBean
  public UnitRunner allotUnitRunner(Store store, AllotProperties properties, UnitHandler handler,
      ObjectProvider<MeterRegistry> meters) {
    AllotProperties.WorkerSettings w = properties.worker();
    Divider divider = Members.builder(store, w, w.pool(), w.port(), null).build();
    meters.ifAvailable(m -> DividerMeters.bind(m, divider, w.pool(), "units"));
    return UnitRunner.builder(divider, handler).build();
  }

  /** Starts the runner with the context, drains and closes it on shutdown. */
  @Bean
  @ConditionalOnMissingBean(name = "allotWorkerLifecycle")
  public AllotLifecycle allotWorkerLifecycle(UnitRunner runner, AllotProperties properties) {
    return AllotLifecycle.member("worker", runner.divider(), runner::start, runner::close,
        properties.worker().drainTimeout());
  }
}
