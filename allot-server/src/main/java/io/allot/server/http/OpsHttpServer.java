package io.allot.server.http;

import io.allot.server.ui.UiHandler;
import io.allot.tls.PemTls;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /metrics} (Prometheus), {@code /version} and {@code /healthz}, on Jetty (core, no servlets); and, when given,
 * the task management API under {@code /api/v1} ({@link ApiHandler}) on the same port.
 *
 * <p>Slow clients cannot take the port away from {@code /healthz} and {@code /metrics}: a request's headers and body
 * are read without holding a thread (Jetty's selectors; the body by {@link BodyReader}), a connection that sends
 * nothing for {@link #IDLE_TIMEOUT} is closed (also in the middle of a request), and the threads are a bounded pool
 * ({@link #MAX_THREADS}). Jetty turns Nagle's algorithm off on every connection (TCP_NODELAY).
 */
public final class OpsHttpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OpsHttpServer.class);

  /** A connection idle this long, also one with a request half sent, is closed. */
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(10);
  /** The most threads serving requests (Jetty's selector and acceptor threads included). */
  static final int MAX_THREADS = 32;

  private final Server server;
  private final ServerConnector connector;
  /** The API, or null; its event streams end with the server. */
  private final ApiHandler api;

  public OpsHttpServer(int port, PrometheusMeterRegistry registry, String version, BooleanSupplier healthy) {
    this(port, registry, version, healthy, null);
  }

  /**
   * Listens on {@code port} (every interface; 0: a free port) until {@link #close()}.
   *
   * @param api the handler of {@code /api/v1/...}, or null for none (then those paths answer 404)
   * @throws UncheckedIOException naming the port if it cannot be bound
   */
  public OpsHttpServer(int port, PrometheusMeterRegistry registry, String version, BooleanSupplier healthy,
      ApiHandler api) {
    this(port, registry, version, healthy, api, null);
  }

  /**
   * Listens on {@code port} (every interface; 0: a free port) until {@link #close()}, over HTTPS when {@code tls} is
   * given (client certificates required when it has a client CA; a rotated certificate is served from the next
   * handshake on), else plain HTTP.
   *
   * @param api the handler of {@code /api/v1/...}, or null for none (then those paths answer 404)
   * @param tls the server's TLS, or null for plain HTTP
   * @throws UncheckedIOException naming the port if it cannot be bound
   */
  public OpsHttpServer(int port, PrometheusMeterRegistry registry, String version, BooleanSupplier healthy,
      ApiHandler api, PemTls tls) {
    this.api = api;
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 4);
    threads.setName("allot-http");
    threads.setDaemon(true);
    server = new Server(threads);
    HttpConfiguration config = new HttpConfiguration();
    config.setSendServerVersion(false);
    config.setSendDateHeader(false);
    if (tls == null) {
      connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
    } else {
      SslContextFactory.Server ssl = new SslContextFactory.Server();
      ssl.setSslContext(tls.sslContext());
      ssl.setNeedClientAuth(tls.requiresClientCertificate());
      // no SNI host check: clients that dial an IP address send no SNI, and the certificate's names are checked by
      // the client anyway
      config.addCustomizer(new SecureRequestCustomizer(false));
      connector = new ServerConnector(server, 1, 1, new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
          new HttpConnectionFactory(config));
    }
    connector.setPort(port);
    connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    server.addConnector(connector);
    connector.setAcceptedTcpNoDelay(true); // Jetty's default, said here: no response waits for a delayed ACK
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        return route(request, response, callback, registry, version, healthy, api);
      }
    });
    server.setStopTimeout(1000);
    try {
      server.start();
    } catch (IOException e) {
      stopQuietly();
      String why = e.getCause() == null ? e.getMessage() : e.getMessage() + " (" + e.getCause().getMessage() + ")";
      throw new UncheckedIOException("cannot listen on port " + port + " for /metrics: " + why, e);
    } catch (Exception e) {
      stopQuietly();
      throw new IllegalStateException("cannot start the HTTP server on port " + port + ": " + e, e);
    }
    log.info("{} on :{}: /metrics, /healthz, /version{}", tls == null ? "HTTP (plain text, no TLS)" : "HTTPS, " + tls,
        port(),
        api == null ? "" : ", task API /api/v1 (" + api.describeWrites() + ")");
  }

  public int port() {
    return connector.getLocalPort();
  }

  /** Whether accepted connections have Nagle's algorithm off. */
  boolean tcpNoDelay() {
    return connector.getAcceptedTcpNoDelay();
  }

  /** Answers one request of the paths, on a pool thread; the API once its body is read. False: Jetty's 404. */
  private static boolean route(Request request, Response response, Callback callback,
      PrometheusMeterRegistry registry, String version, BooleanSupplier healthy, ApiHandler api) {
    String path = request.getHttpURI().getPath();
    if (api != null && path.equals(ApiHandler.PREFIX + "/events/stream")) {
      ApiHandler.Reply refused = api.refusedRead(request.getHeaders().get(HttpHeader.AUTHORIZATION), remote(request));
      if (refused != null) { // reads are closed and this client has no token that may read
        refused.headers().forEach(h -> response.getHeaders().add(h[0], h[1]));
        send(response, callback, refused.status(), refused.type(), refused.body());
        return true;
      }
      return api.eventStreams().open(request, response, callback); // holds no thread
    }
    if (api != null && path.startsWith(ApiHandler.PREFIX)) {
      BodyReader.read(request, ApiHandler.MAX_BODY_BYTES, ApiHandler.DRAIN_BYTES, body -> {
        try {
          ApiHandler.Reply r = api.handle(new ApiHandler.Call(request.getMethod(), request.getHttpURI().getPath(),
              request.getHttpURI().getQuery(), request.getHeaders().get(HttpHeader.AUTHORIZATION),
              remote(request), body));
          r.headers().forEach(h -> response.getHeaders().add(h[0], h[1]));
          send(response, callback, r.status(), r.type(), r.body());
        } catch (RuntimeException e) {
          callback.failed(e);
        }
      }, callback::failed);
      return true;
    }
    if (UiHandler.serves(path)) {
      return UiHandler.INSTANCE.handle(request, response, callback); // the dashboard (issue 19)
    }
    switch (path) {
      case "/metrics" -> send(response, callback, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
      case "/version" -> send(response, callback, 200, "text/plain; charset=utf-8", version);
      case "/healthz" -> {
        boolean ok = healthy.getAsBoolean();
        send(response, callback, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "store unreachable\n");
      }
      default -> {
        return false; // Jetty's 404
      }
    }
    return true;
  }

  private static InetAddress remote(Request request) {
    SocketAddress a = request.getConnectionMetaData().getRemoteSocketAddress();
    return a instanceof InetSocketAddress i ? i.getAddress() : null;
  }

  private static void send(Response response, Callback callback, int status, String type, String body) {
    send(response, callback, status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(Response response, Callback callback, int status, String type, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  private void stopQuietly() {
    try {
      server.stop();
    } catch (Exception e) {
      log.debug("stopping the HTTP server", e);
    }
  }

  @Override
  public void close() {
    if (api != null) {
      api.closeEventStreams();
    }
    stopQuietly();
  }
}
