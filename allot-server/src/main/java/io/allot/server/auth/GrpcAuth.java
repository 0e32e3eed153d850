package io.allot.server.auth;

import io.grpc.CallCredentials;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The {@link Authenticator} on gRPC: a {@link ServerInterceptor} that reads {@code authorization: Bearer <token>}
 * and refuses a call before it starts (UNAUTHENTICATED without a known token, PERMISSION_DENIED for a token whose
 * role does not allow the method or a write from off loopback without tokens), and the client's
 * {@link CallCredentials} that send the token.
 */
public final class GrpcAuth {
  /** The metadata key of the token. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private GrpcAuth() {}

  /**
   * Checks every call with {@code auth}.
   *
   * @param channel the channel the refusals are counted under
   * @param needed  the role each method needs, by full method name ({@code package.Service/Method})
   */
  public static ServerInterceptor interceptor(Authenticator auth, Authenticator.Channel channel,
      Function<String, Role> needed) {
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(needed, "needed");
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        Role role = needed.apply(call.getMethodDescriptor().getFullMethodName());
        Authenticator.Decision d = auth.check(channel, role, headers.get(AUTHORIZATION), remote(call));
        if (!d.allowed()) {
          Status s = d.reason().unauthenticated() ? Status.UNAUTHENTICATED : Status.PERMISSION_DENIED;
          call.close(s.withDescription(d.message()), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    };
  }

  private static InetAddress remote(ServerCall<?, ?> call) {
    SocketAddress a = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    return a instanceof InetSocketAddress i ? i.getAddress() : null;
  }

  /**
   * Call credentials sending {@code authorization: Bearer <token>} on every call.
   *
   * @throws IllegalArgumentException if the token is empty or has white space
   */
  public static CallCredentials bearer(String token) {
    if (token == null || token.isEmpty() || token.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("token must be non-empty without white space");
    }
    String value = "Bearer " + token;
    return new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
        Metadata m = new Metadata();
        m.put(AUTHORIZATION, value);
        applier.apply(m);
      }
    };
  }
}
