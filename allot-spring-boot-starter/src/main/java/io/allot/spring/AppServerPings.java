package io.allot.spring;

import io.allot.worker.UnitRunner;
import io.grpc.ServerServiceDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerFactoryCustomizer;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.grpc.server.DefaultGrpcServerFactory;
import org.springframework.grpc.server.GrpcServerFactory;
import org.springframework.grpc.server.InProcessGrpcServerFactory;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

/**
 * The worker's pings on the application's Spring gRPC server (the worker opens no port of its own): its divider was
 * built with {@code pingsOnAppServer(0)}; this adds the divider's ping services ({@code grpc.health.v1.Health},
 * {@code proto.GRPCPinger}) to every network server factory as they are (outside the global interceptors, and in
 * place of any other service of those names, such as Spring's own health service), starts the member on the started
 * server (its port is the member id's), and on the context's close drains the member and leaves before the gRPC
 * server stops, so the distributor sees it leave rather than stop answering.
 *
 * <p>Thread-safe: the started flag is guarded by {@code this}; the rest is immutable.
 */
final class AppServerPings implements GrpcServerFactoryCustomizer, ApplicationListener<ApplicationEvent> {
  private static final Logger log = LoggerFactory.getLogger(AppServerPings.class);

  private final UnitRunner runner;
  private final Duration drain;
  private final List<ServerServiceDefinition> services;
  private final Set<String> names;
  /** Whether the member was started on a server; guarded by {@code this}. */
  private boolean started;

  /** The pings of {@code runner}'s divider (built with {@code pingsOnAppServer}); {@code drain} on close. */
  AppServerPings(UnitRunner runner, Duration drain) {
    this.runner = runner;
    this.drain = drain;
    this.services = runner.divider().pingServices();
    this.names = services.stream().map(s -> s.getServiceDescriptor().getName()).collect(Collectors.toUnmodifiableSet());
  }

  @Override
  public void customize(GrpcServerFactory factory) {
    if (factory instanceof DefaultGrpcServerFactory<?> server && !(factory instanceof InProcessGrpcServerFactory)) {
      server.setServiceFilter((service, f) -> services.stream().anyMatch(mine -> mine == service)
          || !names.contains(service.getServiceDescriptor().getName()));
      services.forEach(server::addService);
    }
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof GrpcServerStartedEvent e && e.getPort() > 0) {
      start(e.getServer());
    } else if (event instanceof ContextClosedEvent) {
      leave();
    }
  }

  private synchronized void start(io.grpc.Server server) {
    if (!started) {
      runner.divider().start(server);
      started = true;
      log.info("allot worker answers pings on the application's gRPC server, port {}", server.getPort());
    }
  }

  /** Drains (at most {@code drain}) and leaves, once the member started; closing again later does nothing. */
  private synchronized void leave() {
    if (started) {
      if (!drain.isNegative() && !drain.isZero()) {
        runner.divider().flush(drain);
      }
      runner.close();
    }
  }
}
