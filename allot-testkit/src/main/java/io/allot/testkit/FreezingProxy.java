package io.allot.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on a free loopback port that forwards to one target until {@link #freeze()}: from then on it forwards
 * nothing, in either direction, on the connections it has and on new ones, and closes nothing, so both peers see a
 * silent but open connection (no FIN, no RST) as behind a network cut or a proxy that hangs. Unlike
 * {@link NetNamespace} it needs neither root nor Linux, and it cuts one connection path, not a host.
 *
 * <pre>{@code
 * try (FreezingProxy p = FreezingProxy.to("127.0.0.1", server.getPort())) {
 *   // the client dials p.address()
 *   p.freeze();
 * }
 * }</pre>
 *
 * <p>Each connection has two pumping threads (daemon, {@code allot-proxy-<port>-<n>}); a pump reads a chunk and waits
 * while frozen before writing it. {@link #close()} closes the listening socket and every connection.
 * Guards: {@code frozen} by {@code this} (pumps wait on it); {@code sockets} is a concurrent set.
 */
public final class FreezingProxy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FreezingProxy.class);

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final AtomicInteger threads = new AtomicInteger();
  /** Guarded by {@code this}. */
  private boolean frozen;
  /** Guarded by {@code this}. */
  private boolean closed;

  private FreezingProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    thread("accept", this::accept).start();
  }

  /**
   * A proxy to {@code host:port}, forwarding from now on.
   *
   * @throws IllegalArgumentException if {@code port} is not 1..65535
   */
  public static FreezingProxy to(String host, int port) {
    Objects.requireNonNull(host, "host");
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port must be in 1..65535 but was " + port);
    }
    try {
      return new FreezingProxy(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on a loopback port for a proxy to " + host + ":" + port, e);
    }
  }

  /** The proxy's port on the loopback address. */
  public int port() {
    return listener.getLocalPort();
  }

  /** {@code host:port} to dial instead of the target. */
  public String address() {
    return listener.getInetAddress().getHostAddress() + ":" + port();
  }

  /** Stops forwarding, in both directions, without closing anything. */
  public synchronized void freeze() {
    frozen = true;
    log.info("proxy {} -> {} frozen", address(), target);
  }

  /** Forwards again (bytes read while frozen are delivered first). */
  public synchronized void thaw() {
    frozen = false;
    notifyAll();
    log.info("proxy {} -> {} thawed", address(), target);
  }

  public synchronized boolean frozen() {
    return frozen;
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    quietly(listener);
    sockets.forEach(FreezingProxy::quietly);
    sockets.clear();
  }

  private void accept() {
    while (true) {
      Socket in;
      try {
        in = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket out = new Socket();
      try {
        sockets.add(in);
        sockets.add(out);
        out.connect(target, 5_000);
      } catch (IOException e) {
        log.debug("proxy {}: cannot reach {}: {}", address(), target, e.toString());
        quietly(in);
        quietly(out);
        continue;
      }
      thread("up", () -> pump(in, out)).start();
      thread("down", () -> pump(out, in)).start();
    }
  }

  /** Copies {@code from} to {@code to}, holding each chunk while frozen; at the end of either, closes both. */
  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
      int n;
      while ((n = is.read(buf)) >= 0) {
        if (!awaitThawed()) {
          return;
        }
        os.write(buf, 0, n);
        os.flush();
      }
    } catch (SocketException e) {
      // a side closed
    } catch (IOException e) {
      log.debug("proxy {}: pump ended: {}", address(), e.toString());
    } finally {
      if (awaitThawed()) { // a frozen proxy passes on no end of stream either
        quietly(from);
        quietly(to);
      }
    }
  }

  /** Waits while frozen; false once closed. */
  private synchronized boolean awaitThawed() {
    while (frozen && !closed) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !closed;
  }

  private Thread thread(String what, Runnable r) {
    Thread t = new Thread(r, "allot-proxy-" + port() + "-" + what + "-" + threads.incrementAndGet());
    t.setDaemon(true);
    return t;
  }

  private static void quietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
