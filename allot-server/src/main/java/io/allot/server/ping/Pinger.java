package io.allot.server.ping;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.Empty;
import io.allot.ping.LegacyPing;
import io.allot.server.config.HostPort;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Pings members over gRPC: the standard {@code grpc.health.v1.Health/Check} and the original
 * distributor's {@code proto.GRPCPinger/Ping}. One channel per member, reused across pings.
 * Thread-safe.
 */
public final class Pinger implements AutoCloseable {

  /** Which protocol to use. */
  public enum Mode {
    /** Health first; on UNIMPLEMENTED fall back to the legacy ping (remembered per member). */
    AUTO,
    /** Only {@code grpc.health.v1.Health/Check}. */
    HEALTH,
    /** Only {@code proto.GRPCPinger/Ping}. */
    LEGACY;

    /** Parses auto, health or legacy. */
    public static Mode parse(String s) {
      try {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("ping protocol must be auto, health or legacy, got '" + s + "'");
      }
    }
  }

  /** The outcome of one ping. */
  public record Result(String address, boolean ok, long nanos, String error, boolean legacy) {}

  private final Mode mode;
  private final Duration timeout;
  private final ChannelCredentials credentials; // null: plain text
  private final Map<String, Peer> peers = new ConcurrentHashMap<>();

  private static final class Peer {
    final ManagedChannel channel;
    volatile boolean legacy;

    Peer(ManagedChannel channel, boolean legacy) {
      this.channel = channel;
      this.legacy = legacy;
    }
  }

  public Pinger(Mode mode, Duration timeout) {
    this(mode, timeout, null);
  }

  /**
   * Pings over channels with {@code credentials} (TLS: allot-tls's {@code PemTls.channelCredentials()}; null =
   * plain text).
   */
  public Pinger(Mode mode, Duration timeout, ChannelCredentials credentials) {
    this.mode = mode;
    this.timeout = timeout;
    this.credentials = credentials;
  }

  /** Pings {@code address}; the future always completes (never exceptionally) within about the timeout. */
  public CompletableFuture<Result> ping(String address) {
    long start = System.nanoTime();
    Peer peer;
    try {
      peer = peers.computeIfAbsent(address, this::open);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(new Result(address, false, 0, e.getMessage(), false));
    }
    // a member that was down and is back must not wait out gRPC's reconnect backoff (up to 2 minutes)
    if (peer.channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      peer.channel.resetConnectBackoff();
    }
    CompletableFuture<Result> out = new CompletableFuture<>();
    call(peer, address, start, peer.legacy, true, out);
    return out;
  }

  private void call(Peer peer, String address, long start, boolean legacy, boolean mayFallBack, CompletableFuture<Result> out) {
    long remaining = timeout.toNanos() - (System.nanoTime() - start);
    if (remaining <= 0) {
      out.complete(new Result(address, false, System.nanoTime() - start, "DEADLINE_EXCEEDED", legacy));
      return;
    }
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(remaining, TimeUnit.NANOSECONDS);
    ListenableFuture<?> f =
        legacy
            ? ClientCalls.futureUnaryCall(peer.channel.newCall(LegacyPing.METHOD, options), Empty.getDefaultInstance())
            : ClientCalls.futureUnaryCall(
                peer.channel.newCall(HealthGrpc.getCheckMethod(), options), HealthCheckRequest.getDefaultInstance());
    Futures.addCallback(
        f,
        new FutureCallback<Object>() {
          @Override
          public void onSuccess(Object r) {
            long took = System.nanoTime() - start;
            if (r instanceof HealthCheckResponse h && h.getStatus() != HealthCheckResponse.ServingStatus.SERVING) {
              out.complete(new Result(address, false, took, "health status " + h.getStatus(), false));
            } else {
              out.complete(new Result(address, true, took, null, legacy));
            }
          }

          @Override
          public void onFailure(Throwable t) {
            Status s = Status.fromThrowable(t);
            if (s.getCode() == Status.Code.UNIMPLEMENTED && mode == Mode.AUTO && mayFallBack) {
              peer.legacy = !legacy;
              call(peer, address, start, !legacy, false, out);
              return;
            }
            String msg = s.getCode() + (s.getDescription() == null ? "" : ": " + s.getDescription());
            out.complete(new Result(address, false, System.nanoTime() - start, msg, legacy));
          }
        },
        MoreExecutors.directExecutor());
  }

  private Peer open(String address) {
    HostPort hp = HostPort.parse(address);
    ManagedChannel ch =
        (credentials == null ? NettyChannelBuilder.forAddress(hp.host(), hp.port()).usePlaintext()
            : NettyChannelBuilder.forAddress(hp.host(), hp.port(), credentials))
            .disableRetry()
            .idleTimeout(5, TimeUnit.MINUTES)
            .build();
    return new Peer(ch, mode == Mode.LEGACY);
  }

  /** Closes the channels of members that are gone. */
  public void retain(Set<String> addresses) {
    peers.entrySet().removeIf(
        e -> {
          if (!addresses.contains(e.getKey())) {
            e.getValue().channel.shutdownNow();
            return true;
          }
          return false;
        });
  }

  @Override
  public void close() {
    peers.values().forEach(p -> p.channel.shutdownNow());
    peers.clear();
  }

  /** For diagnostics: which members answer only the legacy ping. */
  public boolean isLegacy(String address) {
    Peer p = peers.get(address);
    return p != null && p.legacy;
  }

  static boolean isUnimplemented(Throwable t) {
    return t instanceof StatusRuntimeException e && e.getStatus().getCode() == Status.Code.UNIMPLEMENTED;
  }
}
