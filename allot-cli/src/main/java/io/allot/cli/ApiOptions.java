package io.allot.cli;

import io.allot.server.auth.Authenticator;
import io.allot.server.auth.Role;
import io.allot.server.auth.TokenFile;
import io.allot.server.grpc.TasksGrpcService;
import io.allot.server.http.ApiHandler;
import io.allot.tasks.service.TaskService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/**
 * The task management API's options of {@code allot server} and {@code allot dev}: its bearer tokens (one write token,
 * a read token, a reloadable file of named tokens with roles) and the port of its gRPC service. The REST API itself is
 * always on, on the HTTP port of {@code /metrics}. One {@link Authenticator} checks both.
 *
 * <p>State: {@code auth} and {@code registry} are set by the command's thread before the servers start.
 */
final class ApiOptions {
  @Option(names = {"-api-token", "--api-token"}, paramLabel = "TOKEN", defaultValue = "",
      description = "Bearer token the task API's writes need (POST, PUT, DELETE under /api/v1 and the gRPC writes); "
          + "reads are open unless a read token is given. Empty (and no -api-tokens): writes only from loopback "
          + "(see -api-open-writes). Env API_TOKEN.")
  String token;

  @Option(names = {"-api-tokens", "--api-tokens"}, paramLabel = "FILE",
      description = "A file of named tokens, one per line 'name role token' (role read or write; write implies read; "
          + "# comments), reloaded when it changes (a bad line is logged and the old tokens kept). A read token "
          + "closes reads. With -api-token, both are accepted.")
  Path tokenFile;

  @Option(names = {"-api-read-token", "--api-read-token"}, paramLabel = "TOKEN", defaultValue = "",
      description = "A bearer token that may only read; giving it closes reads (they then need this token or a write "
          + "token). Needs -api-token or -api-tokens.")
  String readToken;

  @Option(names = {"-api-open-writes", "--api-open-writes"},
      description = "Without -api-token, accept the task API's writes from every address (default: from loopback only;"
          + " the gRPC API then listens on loopback only).")
  boolean openWrites;

  @Option(names = {"-api-grpc-port", "--api-grpc-port"}, paramLabel = "PORT", defaultValue = "0",
      description = "Port of the task API as gRPC (allot.tasks.v1.Tasks); 0 = not served. Default ${DEFAULT-VALUE}.")
  int grpcPort;

  /** Counts the refusals ({@code allot_api_refused_total}) in {@code registry}; call before {@link #check()}. */
  private MeterRegistry registry;
  /** Made by {@link #check()}. */
  private Authenticator auth;
  /**
   * Where the gRPC refusals go in the event history ({@code api-refused}): the store of the first {@link #http} or
   * {@link #grpc} call (the check is built before the store opens); volatile, read by the refusal hook.
   */
  private volatile io.allot.store.events.EventWriter refusals;

  /** Counts the API's refusals in {@code registry} ({@code allot_api_refused_total{channel,reason}}). */
  void meterRegistry(MeterRegistry registry) {
    this.registry = registry;
    this.auth = null;
  }

  /** Checks the values and loads the token file; bad ones are bad input naming the flag (and file line). */
  void check() {
    if (grpcPort < 0 || grpcPort > 65535) {
      throw new BadInputException("-api-grpc-port: " + grpcPort + " is not a port");
    }
    if (!readToken.isEmpty() && token.isEmpty() && tokenFile == null) {
      throw new BadInputException("-api-read-token: closes reads but no token could write; give -api-token or "
          + "-api-tokens too");
    }
    authenticator();
  }

  /** The one check of the REST and gRPC API (built at the first call). */
  synchronized Authenticator authenticator() {
    if (auth == null) {
      Authenticator.Builder b = Authenticator.builder().openWrites(openWrites);
      add("-api-token", () -> b.token("api-token", Role.WRITE, token));
      add("-api-read-token", () -> b.token("api-read-token", Role.READ, readToken));
      if (!token.isEmpty() && token.equals(readToken)) {
        throw new BadInputException("-api-read-token: must differ from -api-token");
      }
      if (tokenFile != null) {
        add("-api-tokens", () -> b.tokens(TokenFile.load(tokenFile)));
      }
      if (registry != null) {
        b.meterRegistry(registry);
      }
      b.onRefused(new io.allot.server.events.RefusalEvents(() -> refusals));
      auth = b.build();
    }
    return auth;
  }

  private static void add(String flag, Runnable step) {
    try {
      step.run();
    } catch (IllegalArgumentException e) {
      throw new BadInputException(flag + ": " + e.getMessage());
    }
  }

  /** Whether any token is configured (else writes from loopback only, or open). */
  private boolean hasTokens() {
    return !token.isEmpty() || tokenFile != null;
  }

  /** The REST handler for {@code /api/v1}. */
  ApiHandler http(TaskService service) {
    recordRefusalsIn(service);
    return ApiHandler.checkedBy(service, authenticator());
  }

  /** Writes the gRPC API's refusals into {@code service}'s store from now on (the first store given wins). */
  private synchronized void recordRefusalsIn(TaskService service) {
    if (refusals == null) {
      refusals = io.allot.store.events.EventWriter.of(service.store());
    }
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
   * {@code -api-open-writes}, else on loopback only.
   *
   * @throws BadInputException if the port cannot be bound
   */
  Running grpc(TaskService service) {
    return grpc(service, null);
  }

  /** {@link #grpc(TaskService)} with {@code credentials} (TLS; null = plain text). */
  Running grpc(TaskService service, io.grpc.ServerCredentials credentials) {
    recordRefusalsIn(service);
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
    InetSocketAddress at = !hasTokens() && !openWrites
        ? new InetSocketAddress(InetAddress.getLoopbackAddress(), grpcPort) : new InetSocketAddress(grpcPort);
    Server server = (credentials == null ? NettyServerBuilder.forAddress(at)
        : NettyServerBuilder.forAddress(at, credentials))
        .addService(TasksGrpcService.definition(service, authenticator())).build();
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

  /** One line on how reads and writes are protected. */
  String describeAuth() {
    return authenticator().describe() + (tokenFile != null ? " (token file " + tokenFile + ", reloaded on change)" : "")
        + (!hasTokens() && !openWrites && grpcPort != 0 ? "; gRPC on loopback only" : "");
  }
}
