package io.allot.server.dev;

import io.allot.ping.LegacyPing;
import io.allot.ping.PingService;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A member that only answers pings: a real gRPC server on a loopback port serving the pings of a {@link PingService}
 * that is always SERVING, {@code grpc.health.v1} and/or the legacy {@code proto.GRPCPinger/Ping} (a member may serve
 * only one of them, as old and new services do). Can be stopped and started again on the same port. Used by
 * {@code allot dev}, the distributor benchmark and tests. Thread-safe.
 */
public final class DemoMember implements AutoCloseable {
  private final PingService pings = PingService.alwaysServing();
  private final boolean health;
  private final boolean legacy;
  private int port; // guarded by this: the port asked for, then the one bound at the first start
  private Server server; // guarded by this: null while stopped

  /**
   * @param port the loopback port, or 0 to pick a free one at first start
   * @param health serve grpc.health.v1
   * @param legacy serve proto.GRPCPinger/Ping
   */
  public DemoMember(int port, boolean health, boolean legacy) {
    this.port = port;
    this.health = health;
    this.legacy = legacy;
  }

  /** Starts serving; returns this. */
  public synchronized DemoMember start() {
    if (server != null) {
      return this;
    }
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port)).directExecutor();
    for (ServerServiceDefinition d : pings.services()) {
      String name = d.getServiceDescriptor().getName();
      if ((health && name.equals(HealthGrpc.SERVICE_NAME)) || (legacy && name.equals(LegacyPing.SERVICE))) {
        b.addService(d);
      }
    }
    try {
      server = b.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start demo member on port " + port, e);
    }
    port = server.getPort();
    return this;
  }

  /** Stops serving (connections are cut at once, as if the process died). */
  public synchronized void stop() {
    if (server != null) {
      server.shutdownNow();
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      server = null;
    }
  }

  public synchronized boolean running() {
    return server != null;
  }

  /** The address other processes ping: {@code 127.0.0.1:port}. */
  public String address() {
    return "127.0.0.1:" + port();
  }

  public synchronized int port() {
    return port;
  }

  @Override
  public void close() {
    stop();
  }
}
