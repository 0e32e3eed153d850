package io.allot.cli.dev;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The one gRPC method the dev workers serve and the dev routing client calls: {@code allot.dev.Demo/Who}, which
 * answers the member's id and version ({@code "127.0.0.1:4101 v1"}). Strings as UTF-8, no protobuf.
 */
final class WhoService {
  private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
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

  /** {@code allot.dev.Demo/Who}. */
  static final MethodDescriptor<String, String> WHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("allot.dev.Demo/Who")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  private WhoService() {}

  /** The service answering each call with what {@code answer} gives at call time. */
  static ServerServiceDefinition serving(Supplier<String> answer) {
    return ServerServiceDefinition.builder(WHO.getServiceName())
        .addMethod(WHO, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(answer.get());
          obs.onCompleted();
        })).build();
  }
}
