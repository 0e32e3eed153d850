package io.allot.spring;

import io.allot.server.http.ApiHandler;
import io.allot.server.http.OpsHttpServer;
import io.allot.store.Store;
import io.allot.tasks.service.TaskService;
import io.allot.worker.Divider;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With {@code allot.api.enabled=true} (and {@code allot-server} on the class path): the task management API of
 * {@code bin/allot server}, its {@link OpsHttpServer} with the {@link ApiHandler} under {@code /api/v1}, listening on
 * {@code allot.api.port} from the bean's creation until the context closes; writes need {@code allot.api.token} when
 * it is set, else are accepted from loopback only ({@code allot.api.open-writes=true}: from everywhere). {@code /metrics} shows the application's {@link PrometheusMeterRegistry} when it has one; {@code /healthz}
 * answers 503 while the store does not.
 */
@AutoConfiguration(after = AllotStoreAutoConfiguration.class,
    afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus"
        + ".PrometheusMetricsExportAutoConfiguration")
@ConditionalOnClass(name = "io.allot.server.http.OpsHttpServer")
@ConditionalOnBean(Store.class)
@ConditionalOnBooleanProperty(name = "allot.api.enabled")
public class AllotApiAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(AllotApiAutoConfiguration.class);

  /** The running API server. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public OpsHttpServer allotApiServer(Store store, AllotProperties properties,
      ObjectProvider<PrometheusMeterRegistry> prometheus) {
    AllotProperties.ApiSettings api = properties.api();
    String table = properties.worker().distributionNamespace() != null ? properties.worker().distributionNamespace()
        : Divider.DEFAULT_DISTRIBUTION;
    TaskService tasks = api.pools().isEmpty() ? TaskService.anyPool(store, table)
        : TaskService.forPools(store, table, api.pools());
    PrometheusMeterRegistry registry = prometheus.getIfAvailable(() -> new PrometheusMeterRegistry(
        PrometheusConfig.DEFAULT));
    String version = OpsHttpServer.class.getPackage().getImplementationVersion();
    ApiHandler handler = new ApiHandler(tasks, api.token(), api.openWrites());
    OpsHttpServer server = new OpsHttpServer(api.port(), registry, version == null ? "dev" : version,
        () -> reachable(store), handler);
    log.info("allot task API on :{}/api/v1 ({})", server.port(), handler.describeWrites());
    return server;
  }

  private static boolean reachable(Store store) {
    try {
      store.clock().timeMillis();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
