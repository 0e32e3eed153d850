package io.allot.server.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * {@code /metrics} (Prometheus), {@code /version} and {@code /healthz}, on the JDK's HTTP server; and, when given,
 * the task management API under {@code /api/v1} ({@link ApiHandler}) on the same port.
 */
public final class OpsHttpServer implements AutoCloseable {
  /**
   * The JDK's HTTP server leaves Nagle's algorithm on unless this property is true (read once, when its classes load):
   * a response written in parts then waits for the client's delayed ACK, about 40 ms per request (500 creates through
   * the API, one after another, took 25–27 s in {@code TaskChaosTest}'s set-up, 3.9–4.6 s with it). Set here, before
   * the first server, unless the JVM was started with a value of its own.
   */
  static final String NODELAY = "sun.net.httpserver.nodelay";

  static {
    if (System.getProperty(NODELAY) == null) {
      System.setProperty(NODELAY, "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;

  public OpsHttpServer(int port, PrometheusMeterRegistry registry, String version, BooleanSupplier healthy) {
    this(port, registry, version, healthy, null);
  }

  /**
   * @param api the handler of {@code /api/v1/...}, or null for none (then those paths answer 404)
   */
  public OpsHttpServer(int port, PrometheusMeterRegistry registry, String version, BooleanSupplier healthy,
      HttpHandler api) {
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on port " + port + " for /metrics: " + e.getMessage(), e);
    }
    AtomicInteger n = new AtomicInteger();
    // the API reads the store: a few threads, so one slow store call does not hold up /metrics and /healthz
    executor = Executors.newFixedThreadPool(api == null ? 1 : 4, r -> {
      Thread t = new Thread(r, "allot-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext("/version", ex -> send(ex, 200, "text/plain; charset=utf-8", version));
    server.createContext("/healthz", ex -> {
      boolean ok = healthy.getAsBoolean();
      send(ex, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "store unreachable\n");
    });
    if (api != null) {
      server.createContext(ApiHandler.PREFIX, api);
    }
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(b);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
