package io.allot.spring;

import io.allot.store.Store;
import io.allot.worker.Divider;
import io.allot.worker.UnitHandler;
import io.allot.worker.UnitRunner;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A worker for the application's {@link UnitHandler} bean when {@code allot.worker.pool} is set: a {@link Divider}
 * (one member of the pool) and a {@link UnitRunner} running the handler for every unit the member owns. Started with
 * the context; on shutdown it drains (affinity 0, every unit handed over, for at most
 * {@code allot.worker.drain-timeout}), then leaves ({@code SHUTDOWN} stops within {@code allot.worker.shutdown-grace}).
 *
 * <p>Pings: when the application runs Spring Boot's gRPC server ({@code spring-boot-grpc-server}), on that server
 * ({@link AppServerPings}: the member id's port is the server's, the member starts once the server has started and
 * leaves when the context begins to close); else, or with {@code allot.worker.pings-on-app-server=false}, on a port
 * of its own, {@code allot.worker.port}.
 */
@AutoConfiguration(after = AllotStoreAutoConfiguration.class,
    afterName = "org.springframework.boot.grpc.server.autoconfigure.GrpcServerAutoConfiguration")
@ConditionalOnBean(Store.class)
@ConditionalOnSingleCandidate(UnitHandler.class)
@ConditionalOnProperty(prefix = "allot.worker", name = "pool")
public class AllotWorkerAutoConfiguration {

  /** The runner of the handler, over a divider built from {@code allot.worker.*}. */
  @Bean
  @ConditionalOnMissingBean
  public UnitRunner allotUnitRunner(Store store, AllotProperties properties, UnitHandler handler,
      ObjectProvider<MeterRegistry> meters, ObjectProvider<PingsOnAppServer> appServer) {
    AllotProperties.WorkerSettings w = properties.worker();
    boolean onAppServer = appServer.getIfAvailable() != null;
    Divider.Builder b = Members.builder(store, w, w.pool(), onAppServer ? 0 : w.port(), null);
    meters.ifAvailable(b::meterRegistry);
    Divider divider = (onAppServer ? b.pingsOnAppServer(0) : b).build();
    return UnitRunner.builder(divider, handler).build();
  }

  /** Starts the runner with the context, drains and closes it on shutdown. */
  @Bean
  @ConditionalOnMissingBean(name = "allotWorkerLifecycle")
  public AllotLifecycle allotWorkerLifecycle(UnitRunner runner, AllotProperties properties,
      ObjectProvider<PingsOnAppServer> appServer) {
    if (appServer.getIfAvailable() != null) { // started by the gRPC server's start, drained when the context closes
      return new AllotLifecycle("worker", () -> { }, runner::close);
    }
    return AllotLifecycle.member("worker", runner.divider(), runner::start, runner::close,
        properties.worker().drainTimeout());
  }

  /** Says the worker's pings go on the application's gRPC server. */
  static final class PingsOnAppServer {}

  /** The pings on the application's Spring gRPC server, when it runs one (and the worker is this configuration's). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent")
  @ConditionalOnBean(type = "org.springframework.grpc.server.GrpcServerFactory")
  @ConditionalOnMissingBean(UnitRunner.class)
  @ConditionalOnBooleanProperty(name = "allot.worker.pings-on-app-server", matchIfMissing = true)
  static class OnAppServer {
    @Bean
    PingsOnAppServer allotPingsOnAppServer() {
      return new PingsOnAppServer();
    }

    @Bean
    AppServerPings allotAppServerPings(UnitRunner runner, AllotProperties properties) {
      return new AppServerPings(runner, properties.worker().drainTimeout());
    }
  }
}
