package io.allot.server.dev;

import io.allot.server.ping.LegacyPing;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A member that only answers pings: a real gRPC server on a loopback port serving {@code
 * grpc.health.v1} and, optionally, the legacy {@code proto.GRPCPinger/Ping}. Can be stopped and
 * started again on the same port. Used by {@code allot dev} and by tests.
 */
public final class DemoMember implements AutoCloseable {
  private final int port;
  private final boolean health;
  private final boolean legacy;
  private Server server;

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
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", boundPort > 0 ? boundPort : port));
    if (health) {
      HealthStatusManager h = new HealthStatusManager();
      b.addService(h.getHealthService());
    }
    if (legacy) {
      b.addService(LegacyPing.service());
    }
    try {
      server = b.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start demo member on port " + port, e);
    }
    boundPort = server.getPort();
    return this;
  }

  private int boundPort;

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
    return "127.0.0.1:" + (boundPort > 0 ? boundPort : port);
  }

  public int port() {
    return boundPort > 0 ? boundPort : port;
  }

  @Override
  public void close() {
    stop();
  }
}
