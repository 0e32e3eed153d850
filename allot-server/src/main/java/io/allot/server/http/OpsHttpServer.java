package io.allot.server.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/** {@code /metrics} (Prometheus), {@code /version} and {@code /healthz}, on the JDK's HTTP server. */
public final class OpsHttpServer implements AutoCloseable {
  private final HttpServer server;

  public OpsHttpServer(int port, PrometheusMeterRegistry registry, String version, BooleanSupplier healthy) {
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on port " + port + " for /metrics: " + e.getMessage(), e);
    }
    server.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-http");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext("/version", ex -> send(ex, 200, "text/plain; charset=utf-8", version));
    server.createContext("/healthz", ex -> {
      boolean ok = healthy.getAsBoolean();
      send(ex, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "store unreachable\n");
    });
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
  }
}
