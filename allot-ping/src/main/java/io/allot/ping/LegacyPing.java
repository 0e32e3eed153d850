package io.allot.ping;

import com.google.protobuf.Empty;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;

/**
 * The original distributor's ping: unary {@code proto.GRPCPinger/Ping} taking and returning
 * {@code google.protobuf.Empty}, described by hand (no generated code needed). Servers answer it through
 * {@link PingService}; the distributor calls it with {@link #METHOD}.
 */
public final class LegacyPing {
  private LegacyPing() {}

  /** The service name. */
  public static final String SERVICE = "proto.GRPCPinger";

  /** The method. */
  public static final MethodDescriptor<Empty, Empty> METHOD =
      MethodDescriptor.<Empty, Empty>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Ping"))
          .setRequestMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .setSampledToLocalTracing(true)
          .build();
}
