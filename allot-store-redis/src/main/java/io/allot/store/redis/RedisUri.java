package io.allot.store.redis;

import io.allot.store.Stores;
import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses a Redis store URI into a {@link RedisStoreConfig}:
 *
 * <pre>
 * redis[s]://[[user]:password@]host[:port][/db][?param=value&amp;...]
 * redis[s]-cluster://[[user]:password@]host:port,host:port[?param=value&amp;...]
 * </pre>
 *
 * {@code rediss} means TLS. Hosts may be {@code [v6addr]:port}; the port defaults to 6379. The user info ends at the
 * <em>last</em> '@', so a password may hold raw '/', '?' or '@'; user, password and parameter values are
 * percent-decoded (UTF-8; '+' stays '+'). Parameters: see {@link #PARAMS}. Every error names the URI with its
 * password replaced by {@code ***}, and the part that is wrong.
 */
final class RedisUri {
  private RedisUri() {}

  /** The accepted parameters. */
  static final List<String> PARAMS = List.of("ca", "verify", "timeout", "connect_timeout", "client_name", "queue",
      "guard", "clock_margin", "allow_eviction");

  /** The URI forms, for {@link io.allot.store.StoreProvider#usage()}. */
  static final String USAGE = "redis[s]://[[user]:password@]host[:port][/db][?param=value&...], "
      + "redis[s]-cluster://[[user]:password@]host:port,host:port[?...] (params: " + String.join(", ", PARAMS) + ")";

  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s)?");

  /**
   * The configuration {@code uri} describes.
   *
   * @throws IllegalArgumentException naming the URI (redacted) and the part that is wrong
   */
  static RedisStoreConfig parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    String text = uri.trim();
    String shown = redact(text);
    try {
      return parse(text, shown);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Redis URI '" + shown + "': " + e.getMessage(), e);
    }
  }

  private static RedisStoreConfig parse(String text, String shown) {
    int sep = text.indexOf("://");
    if (sep <= 0) {
      throw new IllegalArgumentException("expected scheme://...; use " + USAGE);
    }
    String scheme = text.substring(0, sep).toLowerCase(Locale.ROOT);
    if (!List.of("redis", "rediss", "redis-cluster", "rediss-cluster").contains(scheme)) {
      throw new IllegalArgumentException("unknown scheme '" + scheme + "'; use " + USAGE);
    }
    boolean tls = scheme.startsWith("rediss");
    boolean cluster = scheme.endsWith("-cluster");
    String rest = text.substring(sep + 3);

    int at = rest.lastIndexOf('@');
    String userInfo = at < 0 ? null : rest.substring(0, at);
    rest = rest.substring(at + 1);
    int q = rest.indexOf('?');
    String query = q < 0 ? "" : rest.substring(q + 1);
    rest = q < 0 ? rest : rest.substring(0, q);
    int slash = rest.indexOf('/');
    String path = slash < 0 ? "" : rest.substring(slash + 1);
    String hosts = slash < 0 ? rest : rest.substring(0, slash);

    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("no host");
    }
    List<String> addresses = List.of(hosts.split(",", -1));
    if (!cluster && addresses.size() > 1) {
      throw new IllegalArgumentException("several hosts '" + hosts + "' need redis-cluster:// or rediss-cluster://");
    }
    RedisStoreConfig.Builder b = RedisStoreConfig.builder(addresses).cluster(cluster).tls(tls);
    if (userInfo != null) {
      userInfo(userInfo, b);
    }
    if (!path.isEmpty()) {
      if (cluster) {
        throw new IllegalArgumentException("Redis Cluster has no databases: remove '/" + path + "'");
      }
      b.database(number(path, "database '" + path + "'"));
    }
    params(query, tls, b);
    return b.build();
  }

  private static void userInfo(String userInfo, RedisStoreConfig.Builder b) {
    int colon = userInfo.indexOf(':');
    if (colon < 0) {
      // never echoed: it may well be a password written without the ':'
      throw new IllegalArgumentException("the user info before '@' must be [user]:password");
    }
    String user = decode(userInfo.substring(0, colon), "user name");
    String password = decode(userInfo.substring(colon + 1), "password");
    if (password.isEmpty()) {
      throw new IllegalArgumentException("empty password");
    }
    b.username(user.isEmpty() ? null : user).password(password);
  }

  private static void params(String query, boolean tls, RedisStoreConfig.Builder b) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      if (!PARAMS.contains(name)) {
        throw new IllegalArgumentException("unknown parameter '" + name + "' (known: " + String.join(", ", PARAMS)
            + ")");
      }
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1), "parameter '" + name + "'");
      if (value.isEmpty()) {
        throw new IllegalArgumentException("parameter '" + name + "' needs a value");
      }
      if (params.put(name, value) != null) {
        throw new IllegalArgumentException("parameter '" + name + "' given twice");
      }
    }
    params.forEach((name, value) -> {
      switch (name) {
        case "ca" -> b.caPemFiles(paths(needsTls(tls, name, value)));
        case "verify" -> b.tlsVerify(verify(needsTls(tls, name, value)));
        case "timeout" -> b.commandTimeout(duration(name, value, false));
        case "connect_timeout" -> b.connectTimeout(duration(name, value, false));
        case "client_name" -> b.clientName(value);
        case "queue" -> b.requestQueueSize(positive(number(value, "parameter 'queue=" + value + "'"), name, value));
        case "guard" -> b.lostStateGuard(duration(name, value, true));
        case "clock_margin" -> b.clockMargin(duration(name, value, true));
        case "allow_eviction" -> b.allowEviction(bool(name, value));
        default -> throw new IllegalStateException(name); // PARAMS and this switch disagree
      }
    });
  }

  private static String needsTls(boolean tls, String name, String value) {
    if (!tls) {
      throw new IllegalArgumentException("parameter '" + name + "=" + value
          + "' needs TLS: use rediss:// or rediss-cluster://");
    }
    return value;
  }

  private static List<Path> paths(String value) {
    List<Path> out = new ArrayList<>();
    for (String p : value.split(",", -1)) {
      if (p.isBlank()) {
        throw new IllegalArgumentException("empty file name in parameter 'ca=" + value + "'");
      }
      out.add(Path.of(p.trim()));
    }
    return out;
  }

  private static RedisStoreConfig.TlsVerify verify(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "full" -> RedisStoreConfig.TlsVerify.FULL;
      case "ca" -> RedisStoreConfig.TlsVerify.CA;
      case "none" -> RedisStoreConfig.TlsVerify.NONE;
      default -> throw new IllegalArgumentException("parameter 'verify=" + value + "' must be full, ca or none");
    };
  }

  /** {@code 500ms}, {@code 2s} or plain milliseconds; positive, or also zero if {@code zeroAllowed}. */
  static Duration duration(String name, String value, boolean zeroAllowed) {
    Matcher m = DURATION.matcher(value);
    if (!m.matches() || (!zeroAllowed && Long.parseLong(m.group(1)) == 0)) {
      throw new IllegalArgumentException("parameter '" + name + "=" + value + "' must be a "
          + (zeroAllowed ? "duration" : "positive duration") + " such as 500ms, 2s or 1500 (milliseconds)");
    }
    long n = Long.parseLong(m.group(1));
    return "s".equals(m.group(2)) ? Duration.ofSeconds(n) : Duration.ofMillis(n);
  }

  private static boolean bool(String name, String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("parameter '" + name + "=" + value + "' must be true or false");
    };
  }

  private static int positive(int n, String name, String value) {
    if (n < 1) {
      throw new IllegalArgumentException("parameter '" + name + "=" + value + "' must be at least 1");
    }
    return n;
  }

  private static int number(String value, String what) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not a number");
    }
  }

  /** Percent-decodes {@code s} as UTF-8 ('+' stays '+'); the message names {@code what}, never the value. */
  static String decode(String s, String what) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '%') {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
      int lo = hi < 0 ? -1 : Character.digit(s.charAt(i + 2), 16);
      if (lo < 0) {
        throw new IllegalArgumentException("bad percent-encoding in the " + what);
      }
      out.write(hi * 16 + lo);
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(out.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("the " + what + " is not percent-encoded UTF-8");
    }
  }

  /**
   * {@code uri} with the password replaced by {@code ***}: {@link Stores#redact}, and also where this parser would
   * read a password that {@code Stores.redact} leaves alone (user info without ':', or holding a raw '/').
   */
  static String redact(String uri) {
    String r = Stores.redact(uri);
    int start = r.indexOf("://");
    int at = r.lastIndexOf('@');
    if (start < 0 || at < start) {
      return r;
    }
    String userInfo = r.substring(start + 3, at);
    int colon = userInfo.indexOf(':');
    String user = colon < 0 ? "" : userInfo.substring(0, colon);
    return r.substring(0, start + 3) + user + ":***" + r.substring(at);
  }
}
