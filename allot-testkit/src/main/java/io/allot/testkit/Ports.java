package io.allot.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on the loopback interface, for throwaway servers and for "nothing listens here" tests. A port is
 * free when it is returned; another process may take it before the caller binds it, so servers started on it
 * should retry with a new port when the bind fails (as {@link RedisServer} does).
 */
public final class Ports {
  private static final int ATTEMPTS = 200;

  private Ports() {}

  /** A port free now on 127.0.0.1. */
  public static int free() {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  /**
   * A port {@code p} such that {@code p} and {@code p + offset} are both free now (a Redis Cluster node needs its
   * bus port, port + 10000).
   *
   * @throws IllegalArgumentException if {@code offset} is not in 1..30000
   */
  public static int freePair(int offset) {
    if (offset < 1 || offset > 30_000) {
      throw new IllegalArgumentException("offset must be in 1..30000 but was " + offset);
    }
    // below the usual ephemeral range (32768..), where other processes' outgoing connections take ports
    int low = 20_000;
    int high = Math.max(low + 1, Math.min(30_000, 65_536 - offset));
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(low, high);
      if (bindable(port) && bindable(port + offset)) {
        return port;
      }
    }
    throw new IllegalStateException("no free pair of ports (p, p+" + offset + ") after " + ATTEMPTS + " attempts");
  }

  /** Whether {@code port} can be bound on 127.0.0.1 now. */
  public static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
