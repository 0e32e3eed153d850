package io.allot.spring;

import io.allot.server.http.ApiHandler;
import io.allot.server.http.OpsHttpServer;
import io.allot.server.http.ServerRoutes;
import io.allot.store.Store;
import io.allot.tasks.service.TaskService;
import io.allot.worker.Divider;
import io.micrometer.core.instrument.MeterRegistry;
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
 * {@code bin/allot server}, its {@link OpsHttpServer} with the {@link ApiHandler} under {@code /api/v1} (and the
 * route groups of {@link ServerRoutes}: table, units, weights, queues) and the dashboard under {@code /ui}, listening
 * on {@code allot.api.port} from the bean's creation until the context closes. One authenticator checks every route
 * ({@link AllotApiSecurity}): writes need a write token ({@code allot.api.token}, {@code allot.api.tokens-file}) when
 * one is set, else are accepted from loopback only ({@code allot.api.open-writes=true}: from everywhere); a read token
 * ({@code allot.api.read-token}, or one in the file) closes reads. {@code /metrics} shows the application's
 * {@link PrometheusMeterRegistry} when it has one; {@code /healthz} answers 503 while the store does not. With
 * {@code allot.api.tls.cert} and {@code key} the port serves HTTPS only (client certificates required with
 * {@code allot.api.tls.client-ca}).
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
      ObjectProvider<PrometheusMeterRegistry> prometheus, ObjectProvider<MeterRegistry> meters) {
    AllotProperties.ApiSettings api = properties.api();
    String table = properties.worker().distributionNamespace() != null ? properties.worker().distributionNamespace()
        : Divider.DEFAULT_DISTRIBUTION;
    TaskService anyList = api.pools().isEmpty() ? TaskService.anyPool(store, table)
        : TaskService.forPools(store, table, api.pools());
    // a task in a pool the units list feeds is refused (it would drop the list's units from the table)
    TaskService tasks = api.unitsList() == null ? anyList : anyList.withUnitsList(api.unitsList());
    PrometheusMeterRegistry registry = prometheus.getIfAvailable(() -> new PrometheusMeterRegistry(
        PrometheusConfig.DEFAULT));
    String version = OpsHttpServer.class.getPackage().getImplementationVersion();
    MeterRegistry counted = meters.getIfUnique(() -> registry);
    ApiHandler handler = ApiHandler.checkedBy(tasks, AllotApiSecurity.authenticator(api, counted))
        .withRoutes(ServerRoutes.of(store, tasks, table));
    OpsHttpServer server = new OpsHttpServer(api.port(), registry, version == null ? "dev" : version,
        () -> reachable(store), handler, AllotApiSecurity.tls(api.tls()));
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
