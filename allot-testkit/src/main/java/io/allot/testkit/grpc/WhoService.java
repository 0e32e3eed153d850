package io.allot.testkit.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A gRPC service of one unary method, {@code Who}, that members on loopback answer with their id: the routing tests'
 * members and the route bench's. The callers need {@code grpc-stub} and {@code grpc-netty-shaded} (optional here).
 */
public final class WhoService {
  /** Strings as UTF-8, both ways. */
  public static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** A member on loopback: its server, its id ({@code 127.0.0.1:port}) and how long its answers take. */
  public abstract static class WhoMember {
    /** The running server. */
    public final Server server;
    /** {@code 127.0.0.1:} and the server's port: the answer. */
    public final String id;
    /** How long each call takes, ms; 0: answered at once. Volatile: set by the test, read by the calls. */
    public volatile long delayMillis;

    /** A member of {@code server}, started by {@link WhoService#start}. */
    protected WhoMember(Server server) {
      this.server = server;
      this.id = "127.0.0.1:" + server.getPort();
    }

    /** Told of each call before it is answered (a count); nothing by default. */
    protected void called() {}
  }

  private WhoService() {}

  /** The unary method {@code service/Who}, strings as UTF-8. */
  public static MethodDescriptor<String, String> who(String service) {
    return MethodDescriptor.<String, String>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(service + "/Who")
        .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
  }

  /**
   * Starts a Netty server on 127.0.0.1 and a free port serving {@code who}: each call is answered by the member
   * {@code self} gives at call time, after its delay (scheduled on {@code delays}).
   *
   * @param wrap the service as served (e.g. with an interceptor), given the plain one
   * @throws UncheckedIOException if the server cannot start
   */
  public static Server start(MethodDescriptor<String, String> who, Supplier<? extends WhoMember> self,
      ScheduledExecutorService delays, UnaryOperator<ServerServiceDefinition> wrap) {
    ServerServiceDefinition def = ServerServiceDefinition.builder(who.getServiceName())
        .addMethod(who, ServerCalls.asyncUnaryCall((req, obs) -> {
          WhoMember me = self.get();
          me.called();
          Runnable answer = () -> {
            obs.onNext(me.id);
            obs.onCompleted();
          };
          long delay = me.delayMillis;
          if (delay > 0) {
            delays.schedule(answer, delay, TimeUnit.MILLISECONDS);
          } else {
            answer.run();
          }
        })).build();
    try {
      return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(wrap.apply(def))
          .directExecutor().build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
