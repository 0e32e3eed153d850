package io.allot.ping;

import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A small gRPC server (Netty, direct executor) that serves one {@link PingService}: for members that do not run a
 * gRPC server of their own. {@link #close(long)} terminates the service and closes the port.
 */
public final class PingServer implements AutoCloseable {
  private final PingService service;
  private final Server server;

  /**
   * Binds {@code bindHost:port} (0 = any free port) and starts answering with {@code service}.
   *
   * @throws UncheckedIOException naming the address if it cannot be bound
   */
  public PingServer(String bindHost, int port, PingService service) {
    this(bindHost, port, service, null);
  }

  /**
   * Binds {@code bindHost:port} (0 = any free port) with {@code credentials} (e.g. TLS: allot-tls's
   * {@code PemTls.serverCredentials()}; null = plain text) and starts answering with {@code service}.
   *
   * @throws UncheckedIOException naming the address if it cannot be bound
   */
  public PingServer(String bindHost, int port, PingService service, ServerCredentials credentials) {
    this.service = Objects.requireNonNull(service, "service");
    Objects.requireNonNull(bindHost, "bindHost");
    InetSocketAddress at = new InetSocketAddress(bindHost, port);
    NettyServerBuilder b = (credentials == null ? NettyServerBuilder.forAddress(at)
        : NettyServerBuilder.forAddress(at, credentials)).directExecutor();
    for (ServerServiceDefinition d : service.services()) {
      b.addService(d);
    }
    try {
      server = b.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve pings on " + bindHost + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** The port bound. */
  public int port() {
    return server.getPort();
  }

  /** The service answered. */
  public PingService service() {
    return service;
  }

  /** Terminates the service, then closes the port (waits up to {@code millis}, then cuts connections). */
  public void close(long millis) {
    service.terminate();
    server.shutdown();
    try {
      if (!server.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
        server.awaitTermination(millis, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** Cuts every connection at once (as if the process died) without waiting; the service is left as it is. */
  public void kill() {
    server.shutdownNow();
  }

  /** {@link #close(long)} with 1 s. */
  @Override
  public void close() {
    close(1000);
  }
}
