package io.allot.worker;

import com.google.protobuf.Empty;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The member's ping endpoint: {@code grpc.health.v1.Health} (status of service {@code ""}) and the original
 * distributor's {@code proto.GRPCPinger/Ping}. While not serving (not registered yet, fenced, shutting down) health
 * answers NOT_SERVING and the legacy ping fails with UNAVAILABLE, so both kinds of distributor count a failed ping.
 */
final class PingServer {

  /** The legacy ping, described by hand (a private copy of allot-server's LegacyPing: no dependency on the server). */
  static final String LEGACY_SERVICE = "proto.GRPCPinger";

  static final MethodDescriptor<Empty, Empty> LEGACY_METHOD =
      MethodDescriptor.<Empty, Empty>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(LEGACY_SERVICE, "Ping"))
          .setRequestMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setSampledToLocalTracing(true)
          .build();

  private final HealthStatusManager health = new HealthStatusManager();
  private final Server server;
  private volatile boolean serving;

  /** Binds {@code bindHost:port} (0 = any free port) and starts answering (NOT_SERVING until {@link #serving}). */
  PingServer(String bindHost, int port) {
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
    ServerServiceDefinition legacy =
        ServerServiceDefinition.builder(LEGACY_SERVICE)
            .addMethod(
                LEGACY_METHOD,
                ServerCalls.asyncUnaryCall(
                    (request, observer) -> {
                      if (serving) {
                        observer.onNext(Empty.getDefaultInstance());
                        observer.onCompleted();
                      } else {
                        observer.onError(Status.UNAVAILABLE.withDescription("member not serving").asRuntimeException());
                      }
                    }))
            .build();
    try {
      server =
          NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, port))
              .directExecutor() // both services answer from memory, without blocking
              .addService(health.getHealthService())
              .addService(legacy)
              .build()
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve pings on " + bindHost + ":" + port + " (setting 'port'): " + e.getMessage(), e);
    }
  }

  int port() {
    return server.getPort();
  }

  /** SERVING or NOT_SERVING (idempotent). */
  void serving(boolean on) {
    serving = on;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, on ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  }

  boolean isServing() {
    return serving;
  }

  /** NOT_SERVING for good, then closes the port (waits up to {@code millis}, then cuts connections). */
  void close(long millis) {
    serving = false;
    health.enterTerminalState();
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
}
