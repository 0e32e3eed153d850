package io.allot.ping;

import com.google.protobuf.Empty;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.List;

/**
 * What a member answers to pings: {@code grpc.health.v1.Health} (the status of service {@code ""}, the whole server)
 * and the legacy {@code proto.GRPCPinger/Ping}. While not serving, health answers NOT_SERVING and the legacy ping fails
 * with UNAVAILABLE, so both kinds of distributor count a failed ping. Starts NOT_SERVING unless made with
 * {@link #alwaysServing()}; {@link #terminate()} makes it NOT_SERVING for good.
 *
 * <p>Add {@link #services()} to your own {@code io.grpc.ServerBuilder}, or run them on a port of their own with
 * {@link PingServer}. A server holds one service per name and silently keeps the last one added: do not add a second
 * {@code grpc.health.v1.Health} service (e.g. your own {@code HealthStatusManager}'s) to the same server. Thread-safe;
 * both services answer from memory without blocking, so a direct executor is fine.
 */
public final class PingService {
  private final HealthStatusManager health = new HealthStatusManager();
  private final ServerServiceDefinition healthDefinition = health.getHealthService().bindService();
  private final ServerServiceDefinition legacyDefinition;
  private final Object lock = new Object();
  /** Guarded by {@code lock} for writes (kept in step with the health status); read by legacy pings without it. */
  private volatile boolean serving;
  /** Guarded by {@code lock}: once true, {@link #serving(boolean)} changes nothing. */
  private boolean terminated;

  /** A service that starts NOT_SERVING. */
  public PingService() {
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
    legacyDefinition = ServerServiceDefinition.builder(LegacyPing.SERVICE)
        .addMethod(LegacyPing.METHOD, ServerCalls.asyncUnaryCall(this::legacyPing))
        .build();
  }

  /** A service that is SERVING from the start (a demo member, a plain service of the original layout). */
  public static PingService alwaysServing() {
    PingService s = new PingService();
    s.serving(true);
    return s;
  }

  /** The health service and the legacy ping, to add to a server. The same definitions on every call. */
  public List<ServerServiceDefinition> services() {
    return List.of(healthDefinition, legacyDefinition);
  }

  /** Only {@code grpc.health.v1.Health}: for a member that answers the health check alone. */
  public ServerServiceDefinition healthService() {
    return healthDefinition;
  }

  /** Only {@code proto.GRPCPinger/Ping}: for a member that answers the legacy ping alone. */
  public ServerServiceDefinition legacyService() {
    return legacyDefinition;
  }

  /** SERVING or NOT_SERVING (idempotent); ignored after {@link #terminate()}. */
  public void serving(boolean on) {
    synchronized (lock) {
      if (terminated) {
        return;
      }
      serving = on;
      health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
          on ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    }
  }

  /** True while SERVING. */
  public boolean isServing() {
    return serving;
  }

  /** NOT_SERVING for good (the member is leaving); idempotent. */
  public void terminate() {
    synchronized (lock) {
      if (terminated) {
        return;
      }
      terminated = true;
      serving = false;
      health.enterTerminalState();
    }
  }

  private void legacyPing(Empty request, StreamObserver<Empty> out) {
    if (serving) {
      out.onNext(Empty.getDefaultInstance());
      out.onCompleted();
    } else {
      out.onError(Status.UNAVAILABLE.withDescription("member not serving").asRuntimeException());
    }
  }
}
