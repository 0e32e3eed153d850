package io.allot.worker;

import io.allot.ping.PingServer;
import io.allot.ping.PingService;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where the member answers the distributor's pings, with allot-ping's {@link PingService}: SERVING only while
 * registered. Either on a {@link PingServer} of its own (the default), or on the application's own gRPC server
 * ({@link Divider.Builder#pingsOnAppServer(int)}), which must have been given {@link #servicesForAppServer()}.
 */
final class PingEndpoint {
  private final Settings settings;
  private final PingService service = new PingService();
  /** Atomic: set when the application took the services (app-server mode). */
  private final AtomicBoolean handedOut = new AtomicBoolean();
  /** Set once by {@link #open()} (own-server mode), read by {@link #close()}; volatile. */
  private volatile PingServer server;

  PingEndpoint(Settings settings) {
    this.settings = settings;
  }

  /** The services to add to the application's server; only in app-server mode. */
  List<ServerServiceDefinition> servicesForAppServer() {
    if (!settings.appServer()) {
      throw new IllegalStateException("this divider serves pings on a port of its own (setting 'port'); build it with"
          + " pingsOnAppServer(port) to answer them on your own gRPC server instead");
    }
    handedOut.set(true);
    return service.services();
  }

  /**
   * Starts answering (NOT_SERVING until {@link #serving}); returns the port of the member id.
   *
   * @throws UncheckedIOException naming the setting if the port cannot be bound
   * @throws IllegalStateException in app-server mode, if the application never took the services or the port is 0
   */
  int open() {
    if (settings.appServer()) {
      if (!handedOut.get()) {
        throw new IllegalStateException("pingsOnAppServer(" + settings.port() + "): add Divider.pingServices() to that"
            + " server's builder before it is built, and before start(); otherwise the distributor's pings fail");
      }
      if (settings.port() == 0) {
        throw new IllegalStateException("pingsOnAppServer(0): the port is taken from the server, so start the divider"
            + " with start(server)");
      }
      return settings.port();
    }
    String bind = settings.resolvedBindAddress();
    try {
      server = new PingServer(bind, settings.port(), service);
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException("cannot serve pings on " + bind + ":" + settings.port() + " (setting 'port'): "
          + e.getCause().getMessage(), e.getCause());
    }
    return server.port();
  }

  /**
   * App-server mode, checked against the running server: it listens (its port is the member id's, and equals the
   * configured one unless that is 0) and serves this endpoint's very service definitions (not another health service
   * that replaced them). Returns the port.
   *
   * @throws IllegalStateException naming what is wrong
   */
  int open(Server appServer) {
    Objects.requireNonNull(appServer, "appServer");
    if (!settings.appServer()) {
      throw new IllegalStateException("start(Server) is for a divider built with pingsOnAppServer(port); this one "
          + "serves pings on a port of its own (setting 'port'): use start()");
    }
    int port;
    try {
      port = appServer.getPort();
    } catch (IllegalStateException e) {
      port = -1; // not started
    }
    if (port <= 0) {
      throw new IllegalStateException("the application server is not listening (port " + port + "): start it before"
          + " the divider");
    }
    if (settings.port() != 0 && settings.port() != port) {
      throw new IllegalStateException("pingsOnAppServer(" + settings.port() + ") but the server listens on port " + port);
    }
    List<ServerServiceDefinition> served = appServer.getServices();
    for (ServerServiceDefinition mine : service.services()) {
      String name = mine.getServiceDescriptor().getName();
      ServerServiceDefinition theirs = served.stream()
          .filter(d -> d.getServiceDescriptor().getName().equals(name)).findFirst().orElse(null);
      if (theirs == null) {
        throw new IllegalStateException("the application server does not serve " + name + ": add "
            + "Divider.pingServices() to its builder before building it");
      }
      if (theirs != mine) {
        throw new IllegalStateException("the application server serves another " + name + " than the divider's "
            + "(gRPC keeps the last service added under a name, so another health service or a wrapped copy replaced"
            + " it): add Divider.pingServices() as they are, and no other service of that name");
      }
    }
    handedOut.set(true);
    return port;
  }

  /** SERVING (registered) or NOT_SERVING. */
  void serving(boolean on) {
    service.serving(on);
  }

  /** NOT_SERVING for good; closes the own port (the application's server is the application's to close). */
  void close() {
    PingServer s = server;
    if (s != null) {
      s.close(1000);
    } else {
      service.terminate();
    }
  }
}
