package io.allot.server.ping;

import com.google.protobuf.Empty;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;

/**
 * The original distributor's ping: unary {@code proto.GRPCPinger/Ping} taking and returning {@code
 * google.protobuf.Empty}. Described by hand (no generated code needed).
 */
public final class LegacyPing {
  private LegacyPing() {}

  public static final String SERVICE = "proto.GRPCPinger";

  public static final MethodDescriptor<Empty, Empty> METHOD =
      MethodDescriptor.<Empty, Empty>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Ping"))
          .setRequestMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setSampledToLocalTracing(true)
          .build();

  /** A server-side implementation that always answers. */
  public static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            METHOD,
            ServerCalls.asyncUnaryCall(
                (request, observer) -> {
                  observer.onNext(Empty.getDefaultInstance());
                  observer.onCompleted();
                }))
        .build();
  }
}
