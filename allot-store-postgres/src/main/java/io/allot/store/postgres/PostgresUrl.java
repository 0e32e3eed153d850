package io.allot.store.postgres;

import java.math.BigDecimal;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where to connect, parsed from what a user types: a libpq-style URI ({@code postgresql://user:pass@host:port/db?...}
 * or {@code postgres://...}, the form of {@code allot server --store postgresql://...}) or a pgjdbc URL
 * ({@code jdbc:postgresql://host:port/db?user=...&password=...}).
 *
 * <p>A libpq URI becomes a pgjdbc URL: user and password (percent-decoded) go to connection properties, several
 * hosts ({@code h1:5432,h2:5432}) and {@code [IPv6]} hosts are kept, and the common libpq parameters are renamed to
 * their pgjdbc names ({@code connect_timeout}, {@code application_name}, {@code target_session_attrs}); others
 * ({@code sslmode}, {@code sslrootcert}, ...) have the same name in pgjdbc and pass through. The parameters
 * starting with {@code allot_} (either form) are allot's and are not passed to the driver: {@code allot_schema}
 * selects the schema, {@code allot_guard} and {@code allot_clock_margin} set the lost-state guard and the clock
 * margin ({@link io.allot.store.Safety}) as a number and a unit, {@code ms}, {@code s} or {@code m} ({@code 3s},
 * {@code 200ms}, {@code 1.5s}); any other {@code allot_} name is refused (a misspelt safety setting must not pass
 * silently).
 *
 * @param jdbcUrl     the URL for pgjdbc (without user and password when they came from a libpq URI)
 * @param user        user from the libpq URI's user info or {@code user} parameter; null = the driver's default
 * @param password    password, likewise; null if none
 * @param schema      the {@code allot_schema} parameter, or null
 * @param guard       the {@code allot_guard} parameter, or null
 * @param clockMargin the {@code allot_clock_margin} parameter, or null
 * @param description the address for messages and logs: never contains the password
 */
public record PostgresUrl(String jdbcUrl, String user, String password, String schema, Duration guard,
    Duration clockMargin, String description) {

  static final String SCHEMA_PARAM = "allot_schema";
  static final String GUARD_PARAM = "allot_guard";
  static final String CLOCK_MARGIN_PARAM = "allot_clock_margin";

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

  private static final Map<String, String> LIBPQ_TO_PGJDBC = Map.of(
      "connect_timeout", "connectTimeout",
      "application_name", "ApplicationName",
      "target_session_attrs", "targetServerType");

  public PostgresUrl {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(description, "description");
  }

  /** Parses {@code postgresql://...}, {@code postgres://...} or {@code jdbc:postgresql:...}. */
  public static PostgresUrl parse(String url) {
    Objects.requireNonNull(url, "url");
    String u = url.trim();
    String lower = u.toLowerCase(Locale.ROOT);
    if (lower.startsWith("jdbc:postgresql:")) {
      return parseJdbc(u);
    }
    if (lower.startsWith("postgresql://")) {
      return parseUri(u, u.substring("postgresql://".length()));
    }
    if (lower.startsWith("postgres://")) {
      return parseUri(u, u.substring("postgres://".length()));
    }
    throw new IllegalArgumentException("not a PostgreSQL URL (expected postgresql://user:pass@host:port/db or "
        + "jdbc:postgresql://host:port/db): '" + redactAnything(u) + "'");
  }

  /** The connection properties for pgjdbc (user and password when known). */
  public Properties properties() {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    return p;
  }

  @Override
  public String toString() {
    return description;
  }

  // ---------------------------------------------------------------- libpq URI

  private static PostgresUrl parseUri(String original, String rest) {
    String query = null;
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    String db = "";
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    if (slash >= 0) {
      db = decode(rest.substring(slash + 1), original);
    }
    String user = null;
    String password = null;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String info = authority.substring(0, at);
      authority = authority.substring(at + 1);
      int colon = info.indexOf(':');
      user = decode(colon < 0 ? info : info.substring(0, colon), original);
      password = colon < 0 ? null : decode(info.substring(colon + 1), original);
      if (user.isEmpty()) {
        user = null;
      }
    }
    String hosts = hosts(authority, original);

    Map<String, String> params = new LinkedHashMap<>();
    AllotParams allot = new AllotParams(original);
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq), original);
        String value = eq < 0 ? "" : decode(pair.substring(eq + 1), original);
        if (allot.take(name, value)) {
          continue;
        }
        switch (name) {
          case "user" -> user = value.isEmpty() ? null : value;
          case "password" -> password = value;
          case "host", "hostaddr", "port" -> throw new IllegalArgumentException(
              "the '" + name + "' parameter is not supported: put host:port in the URL ('" + redactAnything(original)
                  + "')");
          case "target_session_attrs" -> params.put("targetServerType", targetServerType(value, original));
          case "dbname" -> db = value;
          default -> params.put(driverParameter(LIBPQ_TO_PGJDBC.getOrDefault(name, name), original), value);
        }
      }
    }

    StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(hosts).append('/').append(encode(db));
    char sep = '?';
    for (Map.Entry<String, String> e : params.entrySet()) {
      jdbc.append(sep).append(encode(e.getKey())).append('=').append(encode(e.getValue()));
      sep = '&';
    }
    String description = "postgresql://" + (user == null ? "" : user + "@") + hosts + "/" + db;
    return new PostgresUrl(jdbc.toString(), user, password, allot.schema, allot.guard, allot.clockMargin,
        description);
  }

  /** Validates {@code host[:port][,host[:port]...]} (IPv6 in brackets); empty = localhost:5432. */
  private static String hosts(String authority, String original) {
    if (authority.isEmpty()) {
      return "localhost:5432";
    }
    StringBuilder out = new StringBuilder();
    for (String hp : authority.split(",", -1)) {
      String host;
      String port = "5432";
      if (hp.startsWith("[")) {
        int end = hp.indexOf(']');
        if (end < 0) {
          throw new IllegalArgumentException("bad host '" + hp + "' in '" + redactAnything(original) + "'");
        }
        host = hp.substring(0, end + 1);
        String after = hp.substring(end + 1);
        if (!after.isEmpty()) {
          if (!after.startsWith(":")) {
            throw new IllegalArgumentException("bad host '" + hp + "' in '" + redactAnything(original) + "'");
          }
          port = after.substring(1);
        }
      } else {
        int colon = hp.lastIndexOf(':');
        host = colon < 0 ? hp : hp.substring(0, colon);
        if (colon >= 0) {
          port = hp.substring(colon + 1);
        }
        host = decode(host, original);
        if (host.startsWith("/")) {
          throw new IllegalArgumentException("Unix-domain sockets are not supported by pgjdbc: use host:port ('"
              + redactAnything(original) + "')");
        }
      }
      if (host.isEmpty() || host.equals("[]")) {
        host = "localhost";
      }
      if (port.isEmpty()) {
        port = "5432";
      }
      try {
        int p = Integer.parseInt(port);
        if (p < 1 || p > 65535) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad port '" + port + "' in '" + redactAnything(original) + "'");
      }
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(host).append(':').append(port);
    }
    return out.toString();
  }

  private static String targetServerType(String libpq, String original) {
    return switch (libpq) {
      case "any" -> "any";
      case "read-write", "primary" -> "primary";
      case "read-only", "standby" -> "secondary";
      case "prefer-standby" -> "preferSecondary";
      default -> throw new IllegalArgumentException("unsupported target_session_attrs '" + libpq + "' in '"
          + redactAnything(original) + "'");
    };
  }

  // ---------------------------------------------------------------- pgjdbc URL

  private static PostgresUrl parseJdbc(String url) {
    String base = url;
    String query = "";
    int q = url.indexOf('?');
    if (q >= 0) {
      base = url.substring(0, q);
      query = url.substring(q + 1);
    }
    AllotParams allot = new AllotParams(url);
    StringBuilder kept = new StringBuilder();
    StringBuilder shown = new StringBuilder();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq), url);
      if (allot.take(name, eq < 0 ? "" : decode(pair.substring(eq + 1), url))) {
        continue;
      }
      driverParameter(name, url);
      kept.append(kept.length() == 0 ? "" : "&").append(pair);
      if (!isSecret(name)) {
        shown.append(shown.length() == 0 ? "" : "&").append(pair);
      }
    }
    String jdbc = kept.length() == 0 ? base : base + "?" + kept;
    String description = shown.length() == 0 ? base : base + "?" + shown;
    return new PostgresUrl(jdbc, null, null, allot.schema, allot.guard, allot.clockMargin, description);
  }

  /**
   * {@code name} if pgjdbc knows it as a connection property; the driver silently ignores names it does not know, so a
   * mistyped or misplaced parameter ({@code ?schema=x} for allot's {@code allot_schema}) would connect with the
   * default and write where nobody meant: refused instead.
   *
   * @throws IllegalArgumentException naming the parameter (and allot's parameter it may have meant)
   */
  static String driverParameter(String name, String original) {
    if (org.postgresql.PGProperty.forName(name) != null) {
      return name;
    }
    String hint = switch (name.toLowerCase(Locale.ROOT)) {
      case "schema", "search_path", "searchpath" -> "; allot's own schema is set with allot_schema";
      case "guard", "lost_state_guard" -> "; allot's lost-state guard is allot_guard";
      case "clock_margin" -> "; allot's clock margin is allot_clock_margin";
      default -> "";
    };
    throw new IllegalArgumentException("unknown parameter '" + name + "' in '" + redactAnything(original)
        + "': neither allot's (allot_schema, allot_guard, allot_clock_margin) nor a PostgreSQL driver property"
        + hint);
  }

  /** allot's own parameters, taken out of a URL as it is parsed. Not thread-safe (one per parse). */
  private static final class AllotParams {
    private final String original;
    private String schema;
    private Duration guard;
    private Duration clockMargin;

    AllotParams(String original) {
      this.original = original;
    }

    /**
     * Takes {@code name=value} if it is one of allot's parameters; false if it is the driver's.
     *
     * @throws IllegalArgumentException for an unknown {@code allot_} name or a bad duration, naming it
     */
    boolean take(String name, String value) {
      if (!name.startsWith("allot_")) {
        return false;
      }
      switch (name) {
        case SCHEMA_PARAM -> schema = value;
        case GUARD_PARAM -> guard = duration(name, value);
        case CLOCK_MARGIN_PARAM -> clockMargin = duration(name, value);
        default -> throw new IllegalArgumentException("unknown parameter '" + name + "' (allot's are "
            + SCHEMA_PARAM + ", " + GUARD_PARAM + " and " + CLOCK_MARGIN_PARAM + ") in '" + redactAnything(original)
            + "'");
      }
      return true;
    }

    private Duration duration(String name, String value) {
      Matcher m = DURATION.matcher(value);
      if (!m.matches()) {
        throw new IllegalArgumentException(name + " must be a duration such as 3s, 200ms or 1.5s but was '" + value
            + "' in '" + redactAnything(original) + "'");
      }
      BigDecimal nanosPerUnit = BigDecimal.valueOf(switch (m.group(2)) {
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        default -> 60_000_000_000L;
      });
      try {
        return Duration.ofNanos(new BigDecimal(m.group(1)).multiply(nanosPerUnit).toBigInteger().longValueExact());
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(name + " is too long: '" + value + "' in '" + redactAnything(original)
            + "'", e);
      }
    }
  }

  private static boolean isSecret(String param) {
    String p = param.toLowerCase(Locale.ROOT);
    return List.of("password", "sslpassword").contains(p);
  }

  // ---------------------------------------------------------------- helpers

  /** Best effort for error messages about a URL that could not be parsed: drops user info and secret parameters. */
  static String redactAnything(String url) {
    return redactSecretParameters(url.replaceAll("(?<=//)[^/@?]*@", "***@"));
  }

  /** {@code url} with the values of its {@code password} and {@code sslpassword} parameters replaced by ***. */
  static String redactSecretParameters(String url) {
    return url.replaceAll("(?i)((?:ssl)?password=)[^&]*", "$1***");
  }

  private static String decode(String s, String original) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad percent-encoding in '" + redactAnything(original) + "'", e);
    }
  }

  private static String encode(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
