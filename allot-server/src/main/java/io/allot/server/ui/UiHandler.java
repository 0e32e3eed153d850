package io.allot.server.ui;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The dashboard at {@code /ui}: a fixed set of files built into the jar (resources next to this class), served with
 * their content types, a Content-Security-Policy that allows no inline script and nothing from another origin, and
 * cache headers: the page itself {@code no-cache}, the assets with an {@code ETag} (a {@code 304} to a matching
 * {@code If-None-Match}). Only the names in {@link #FILES} are served; every other path under {@code /ui} is a 404,
 * so no path can reach anything else ({@code ..}, encoded or not, never names a file). Immutable, thread-safe.
 */
public final class UiHandler {
  /** The path the dashboard lives under. */
  public static final String PREFIX = "/ui";
  /** The policy every answer carries: scripts, styles and requests from this origin only, no inline script. */
  public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  /** The files served (name under {@code /ui/} to content type); {@code /ui} and {@code /ui/} are the page. */
  static final Map<String, String> FILES = Map.of(
      "index.html", "text/html; charset=utf-8",
      "app.js", "text/javascript; charset=utf-8",
      "app.css", "text/css; charset=utf-8");
  private static final String INDEX = "index.html";

  /** The one instance: the files are read once. */
  public static final UiHandler INSTANCE = new UiHandler();

  private final Map<String, Asset> assets;

  private record Asset(String type, byte[] body, String etag) {}

  /**
   * An answer.
   *
   * @param headers name-value pairs besides the content type and length
   */
  public record Reply(int status, String type, byte[] body, List<String[]> headers) {
    /** The value of header {@code name}, or null. */
    public String header(String name) {
      return headers.stream().filter(h -> h[0].equalsIgnoreCase(name)).map(h -> h[1]).findFirst().orElse(null);
    }
  }

  private UiHandler() {
    Map<String, Asset> m = new java.util.HashMap<>();
    FILES.forEach((name, type) -> {
      byte[] body = read(name);
      m.put(name, new Asset(type, body, "\"" + sha256(body).substring(0, 20) + "\""));
    });
    assets = Map.copyOf(m);
  }

  /** Whether {@code path} (not decoded) is the dashboard's to answer. */
  public static boolean serves(String path) {
    return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  /**
   * The answer to {@code method path}.
   *
   * @param rawPath     the request's path, not decoded, starting with {@link #PREFIX}
   * @param ifNoneMatch the {@code If-None-Match} header, or null
   */
  public Reply answer(String method, String rawPath, String ifNoneMatch) {
    String name = rawPath.equals(PREFIX) || rawPath.equals(PREFIX + "/") ? INDEX
        : rawPath.substring(PREFIX.length() + 1);
    Asset a = assets.get(name);
    if (a == null) {
      return plain(404, "no such file in the dashboard: " + rawPath + "\n");
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      Reply r = plain(405, "method " + method + " is not allowed here; use GET\n");
      return new Reply(r.status(), r.type(), r.body(), append(r.headers(), "Allow", "GET, HEAD"));
    }
    List<String[]> headers = common();
    if (name.equals(INDEX)) {
      headers = append(headers, "Cache-Control", "no-cache");
      return new Reply(200, a.type(), a.body(), headers);
    }
    headers = append(append(headers, "Cache-Control", "no-cache"), "ETag", a.etag());
    if (ifNoneMatch != null && matches(ifNoneMatch, a.etag())) {
      return new Reply(304, a.type(), new byte[0], headers);
    }
    return new Reply(200, a.type(), a.body(), headers);
  }

  /** Answers one request on Jetty; always true (every path under {@code /ui} is answered, 404 included). */
  public boolean handle(Request request, Response response, Callback callback) {
    Reply r = answer(request.getMethod(), request.getHttpURI().getPath(),
        request.getHeaders().get(HttpHeader.IF_NONE_MATCH));
    response.setStatus(r.status());
    r.headers().forEach(h -> response.getHeaders().put(h[0], h[1]));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, r.type());
    boolean head = request.getMethod().equals("HEAD") || r.status() == 304;
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, r.body().length);
    response.write(true, head ? ByteBuffer.allocate(0) : ByteBuffer.wrap(r.body()), callback);
    return true;
  }

  private static boolean matches(String ifNoneMatch, String etag) {
    for (String t : ifNoneMatch.split(",")) {
      String s = t.trim();
      if (s.equals("*") || s.equals(etag) || s.equals("W/" + etag)) {
        return true;
      }
    }
    return false;
  }

  private static List<String[]> common() {
    return List.of(new String[] {"Content-Security-Policy", CSP}, new String[] {"X-Content-Type-Options", "nosniff"},
        new String[] {"Referrer-Policy", "no-referrer"});
  }

  private static List<String[]> append(List<String[]> headers, String name, String value) {
    List<String[]> out = new java.util.ArrayList<>(headers);
    out.add(new String[] {name, value});
    return List.copyOf(out);
  }

  private static Reply plain(int status, String text) {
    return new Reply(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8), common());
  }

  private static byte[] read(String name) {
    try (InputStream in = UiHandler.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource " + name + " is missing next to " + UiHandler.class);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
