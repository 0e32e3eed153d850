package io.allot.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.http.OpsHttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The dashboard's files: content types, cache headers, the CSP, and nothing but its own files (issue 19). */
class UiHandlerTest {
  final UiHandler ui = UiHandler.INSTANCE;

  @Test
  void thePageIsServedAtUiAndUiSlashNotCachedWithThePolicy() {
    for (String path : new String[] {"/ui", "/ui/", "/ui/index.html"}) {
      UiHandler.Reply r = ui.answer("GET", path, null);
      assertThat(r.status()).as(path).isEqualTo(200);
      assertThat(r.type()).isEqualTo("text/html; charset=utf-8");
      assertThat(r.header("Cache-Control")).isEqualTo("no-cache");
      assertThat(r.header("Content-Security-Policy")).contains("script-src 'self'").doesNotContain("unsafe-inline")
          .contains("default-src 'none'").contains("connect-src 'self'");
      assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
      assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("<script src=\"/ui/app.js\"")
          .doesNotContain("<script>").doesNotContain(" style=").doesNotContain("http://").doesNotContain("https://");
    }
  }

  @Test
  void assetsHaveTheirTypesAndAnETagThatAnswers304() {
    UiHandler.Reply js = ui.answer("GET", "/ui/app.js", null);
    assertThat(js.status()).isEqualTo(200);
    assertThat(js.type()).isEqualTo("text/javascript; charset=utf-8");
    assertThat(js.header("ETag")).matches("\"[0-9a-f]{20}\"");
    assertThat(js.header("Content-Security-Policy")).isEqualTo(UiHandler.CSP);
    assertThat(ui.answer("GET", "/ui/app.css", null).type()).isEqualTo("text/css; charset=utf-8");
    UiHandler.Reply again = ui.answer("GET", "/ui/app.js", "W/\"other\", " + js.header("ETag"));
    assertThat(again.status()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(ui.answer("GET", "/ui/app.js", "\"other\"").status()).isEqualTo(200);
    assertThat(ui.answer("GET", "/ui/app.css", null).header("ETag")).isNotEqualTo(js.header("ETag"));
  }

  @Test
  void unknownFilesAndTraversalAre404AndOtherMethods405() {
    for (String path : new String[] {"/ui/nosuch.js", "/ui/../http/openapi.json", "/ui/%2e%2e/http/openapi.json",
        "/ui//app.js", "/ui/app.js/", "/ui/./app.js", "/ui/UiHandler.class", "/ui/io/allot/server/ui/app.js",
        "/ui/..%2f..%2fMETA-INF/MANIFEST.MF", "/uix"}) {
      if (!UiHandler.serves(path)) {
        assertThat(path).isEqualTo("/uix");
        continue;
      }
      assertThat(ui.answer("GET", path, null).status()).as(path).isEqualTo(404);
    }
    UiHandler.Reply post = ui.answer("POST", "/ui/app.js", null);
    assertThat(post.status()).isEqualTo(405);
    assertThat(post.header("Allow")).isEqualTo("GET, HEAD");
  }

  @Test
  void theOpsServerServesTheDashboardAndRefusesTraversalOnTheWire() throws Exception {
    try (OpsHttpServer server = new OpsHttpServer(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), "t",
        () -> true)) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
          + "/ui")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
      assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
      assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(UiHandler.CSP);
      HttpResponse<String> js = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
          + "/ui/app.js")).build(), HttpResponse.BodyHandlers.ofString());
      String etag = js.headers().firstValue("ETag").orElseThrow();
      HttpResponse<String> cached = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
          + "/ui/app.js")).header("If-None-Match", etag).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(cached.statusCode()).isEqualTo(304);
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/ui/nosuch.js"))
          .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
      // raw request lines, as a client that does not normalise would send them
      for (String raw : new String[] {"/ui/../../../../etc/passwd", "/ui/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
          "/ui/..%2F..%2F..%2Fetc%2Fpasswd", "/ui/%2e%2e%2fhttp/openapi.json"}) {
        String answer = rawGet(server.port(), raw);
        assertThat(answer).as(raw).matches("(?s)HTTP/1.1 (400|404) .*").doesNotContain("root:")
            .doesNotContain("\"paths\"");
      }
    }
  }

  private static String rawGet(int port, String path) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream out = s.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
