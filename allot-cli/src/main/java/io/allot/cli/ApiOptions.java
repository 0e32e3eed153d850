package io.allot.cli;

import io.allot.server.grpc.TasksGrpcService;
import io.allot.server.http.ApiHandler;
import io.allot.tasks.service.TaskService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/**
 * The task management API's options of {@code allot server} and {@code allot dev}: its bearer token and the port of
 * its gRPC service. The REST API itself is always on, on the HTTP port of {@code /metrics}.
 */
final class ApiOptions {
  @Option(names = {"-api-token", "--api-token"}, paramLabel = "TOKEN", defaultValue = "",
      description = "Bearer token the task API's writes need (POST, PUT, DELETE under /api/v1 and the gRPC writes); "
          + "reads are open. Empty: writes only from loopback (see -api-open-writes). Env API_TOKEN.")
  String token;

  @Option(names = {"-api-open-writes", "--api-open-writes"},
      description = "Without -api-token, accept the task API's writes from every address (default: from loopback only;"
          + " the gRPC API then listens on loopback only).")
  boolean openWrites;

  @Option(names = {"-api-grpc-port", "--api-grpc-port"}, paramLabel = "PORT", defaultValue = "0",
      description = "Port of the task API as gRPC (allot.tasks.v1.Tasks); 0 = not served. Default ${DEFAULT-VALUE}.")
  int grpcPort;

  /** Checks the values; bad ones are bad input. */
  void check() {
    if (grpcPort < 0 || grpcPort > 65535) {
      throw new BadInputException("-api-grpc-port: " + grpcPort + " is not a port");
    }
  }

  /** The REST handler for {@code /api/v1}. */
  ApiHandler http(TaskService service) {
    return new ApiHandler(service, token, openWrites);
  }

  /** A running gRPC API server, or nothing when the port is 0. Closing it stops it. */
  interface Running extends AutoCloseable {
    /** The port, or 0 when not served. */
    int port();

    @Override
    void close();
  }

  /**
   * Starts the gRPC API on {@link #grpcPort}, or nothing when it is 0: on every interface with a token or
   * {@code -api-open-writes}, else on loopback only (its writes have no other check).
   *
   * @throws BadInputException if the port cannot be bound
   */
  Running grpc(TaskService service) {
    return grpc(service, null);
  }

  /** {@link #grpc(TaskService)} with {@code credentials} (TLS; null = plain text). */
  Running grpc(TaskService service, io.grpc.ServerCredentials credentials) {
    if (grpcPort == 0) {
      return new Running() {
        @Override
        public int port() {
          return 0;
        }

        @Override
        public void close() {}
      };
    }
    InetSocketAddress at = token.isEmpty() && !openWrites
        ? new InetSocketAddress(InetAddress.getLoopbackAddress(), grpcPort) : new InetSocketAddress(grpcPort);
    Server server = (credentials == null ? NettyServerBuilder.forAddress(at)
        : NettyServerBuilder.forAddress(at, credentials))
        .addService(TasksGrpcService.definition(service, token)).build();
    try {
      server.start();
    } catch (IOException e) {
      throw new BadInputException("-api-grpc-port " + grpcPort + ": cannot listen: " + e.getMessage());
    }
    return new Running() {
      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void close() {
        server.shutdown();
        try {
          server.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        server.shutdownNow();
      }
    };
  }

  /** One line on how writes are protected. */
  String describeAuth() {
    return ApiHandler.describeWrites(!token.isEmpty(), openWrites)
        + (token.isEmpty() && !openWrites && grpcPort != 0 ? "; gRPC on loopback only" : "");
  }
}
