package io.allot.cli;

import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Stores;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * Where the shared state lives: the one store option of every command that talks to a store, {@code -store URI},
 * opened with {@link Stores#open(String)}. The original distributor's {@code -redis-*} flags keep working: without
 * {@code -store} (or with the bare word {@code redis}) they are mapped onto a Redis URI; the bare word
 * {@code memory} means {@code memory:}.
 */
final class StoreOptions {
  @Option(names = {"-store", "--store"}, paramLabel = "URI",
      description = "The store: memory:, redis://[:password@]host:port, rediss://..., redis-cluster://h1:p1,h2:p2, "
          + "postgresql://user:pass@host:port/db. Default: the Redis the -redis-* flags name.")
  String store;

  @Option(names = {"-redis-addrs", "--redis-addrs"}, paramLabel = "HOST:PORT,...", defaultValue = "127.0.0.1:6379",
      description = "Without -store: the Redis address; several = Redis Cluster. Default ${DEFAULT-VALUE}.")
  String redisAddrs;

  @Option(names = {"-redis-pass", "--redis-pass"}, paramLabel = "PASSWORD", defaultValue = "",
      description = "Without -store: the Redis password.")
  String redisPass;

  @Option(names = {"-redis-tls", "--redis-tls"}, arity = "0..1", fallbackValue = "true", defaultValue = "false",
      paramLabel = "BOOL", description = "Without -store: use TLS to Redis.")
  boolean redisTls;

  @Option(names = {"-redis-rootca-certs", "--redis-rootca-certs"}, paramLabel = "PEM,...", defaultValue = "",
      description = "Without -store: comma-separated root CA certificate files (PEM) for Redis TLS.")
  String redisRootCaCerts;

  /**
   * The store URI these options name: {@code -store} as given, {@code memory:} for the bare word {@code memory},
   * and the Redis URI of the {@code -redis-*} flags when {@code -store} is absent or the bare word {@code redis}.
   *
   * @param clientName the Redis client name for a URI made from the {@code -redis-*} flags (null: none)
   * @throws BadInputException if a {@code -redis-*} flag is bad
   */
  String uri(String clientName) {
    String s = store == null ? "" : store.trim();
    if (s.equalsIgnoreCase("memory")) {
      return "memory:";
    }
    if (!s.isEmpty() && !s.equalsIgnoreCase("redis")) {
      return s;
    }
    return redisUri(split(redisAddrs), redisPass, redisTls, split(redisRootCaCerts), clientName);
  }

  /**
   * The URI of the original distributor's Redis flags: {@code redis://} for one address, {@code redis-cluster://}
   * for several, {@code rediss} with TLS; the password percent-encoded in the user info, the CA files (with TLS
   * only) in {@code ?ca=a.pem,b.pem}, the client name in {@code client_name=}.
   *
   * @throws BadInputException if there is no address
   */
  static String redisUri(List<String> addrs, String password, boolean tls, List<String> caFiles, String clientName) {
    if (addrs.isEmpty()) {
      throw new BadInputException("-redis-addrs: no address given");
    }
    StringBuilder uri = new StringBuilder(tls ? "rediss" : "redis").append(addrs.size() > 1 ? "-cluster://" : "://");
    if (password != null && !password.isEmpty()) {
      uri.append(':').append(encode(password)).append('@');
    }
    uri.append(String.join(",", addrs));
    String sep = "?";
    if (tls && !caFiles.isEmpty()) { // without TLS the original ignores its CA files, and so does this
      uri.append(sep).append("ca=").append(String.join(",", caFiles.stream().map(f -> encode(f).replace("%2F", "/")).toList()));
      sep = "&";
    }
    if (clientName != null && !clientName.isEmpty()) {
      uri.append(sep).append("client_name=").append(encode(clientName));
    }
    return uri.toString();
  }

  /** True if {@code uri} names the in-memory store (which lives in this process only). */
  static boolean isMemory(String uri) {
    return uri.toLowerCase(Locale.ROOT).startsWith("memory:");
  }

  /**
   * Opens the store. A bad URI or a store that cannot be reached is bad input (exit 2): one line naming the URI,
   * never its password.
   */
  Store open(String clientName) {
    String uri = uri(clientName);
    try {
      return Stores.open(uri);
    } catch (IllegalArgumentException | StoreUnavailableException | UncheckedIOException e) {
      throw new BadInputException(openFailure(uri, e));
    }
  }

  /**
   * Opens the store ({@link #open(String)}) and prints what its connect-time check found ({@link Safety#findings()}:
   * durability settings that can lose ownership, each naming the setting and the consequence) to {@code err}, one
   * line each, once: {@code allot: WARN store <where>: <finding>}. The store logs them too.
   */
  Store open(String clientName, PrintWriter err) {
    Store s = open(clientName);
    for (String finding : s.safety().findings()) {
      err.println("allot: WARN store " + s.describe() + ": " + finding);
    }
    err.flush();
    return s;
  }

  /** One line naming the (redacted) URI and why it could not be opened, with no password in it. */
  static String openFailure(String uri, RuntimeException e) {
    String shown = redact(uri);
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    for (String secret : passwords(uri)) {
      why = why.replace(secret, "***");
    }
    why = why.replaceAll("\\s*\\R\\s*", " ").strip();
    String prefix = e instanceof StoreUnavailableException ? "cannot reach store '" : "bad store '";
    return why.contains(shown) ? why : prefix + shown + "': " + why;
  }

  /**
   * {@link Stores#redact}, and the whole user info hidden when it holds several '@' (a password written with a raw
   * '@', which a store may read up to the last '@').
   */
  static String redact(String uri) {
    int start = uri.indexOf("://");
    int first = start < 0 ? -1 : uri.indexOf('@', start + 3);
    int last = uri.lastIndexOf('@');
    if (first >= 0 && last > first) {
      return uri.substring(0, start + 3) + "***" + uri.substring(last);
    }
    return Stores.redact(uri);
  }

  /**
   * Every form the URI's password may take in a message: as written and percent-decoded, with the user info read up
   * to the first and up to the last '@'; longest first.
   */
  private static List<String> passwords(String uri) {
    Set<String> out = new HashSet<>();
    int start = uri.indexOf("://");
    if (start < 0) {
      return List.of();
    }
    for (int at : new int[] {uri.indexOf('@', start + 3), uri.lastIndexOf('@')}) {
      int colon = at < 0 ? -1 : uri.indexOf(':', start + 3);
      if (colon < 0 || colon >= at) {
        continue;
      }
      String written = uri.substring(colon + 1, at);
      out.add(written);
      try {
        out.add(URLDecoder.decode(written.replace("+", "%2B"), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException malformed) {
        // not percent-encoded: the form as written is all there is
      }
    }
    out.remove("");
    return out.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
  }

  /** Percent-encoded (UTF-8): only letters, digits and {@code . - * _} stay, so it is safe in a user info or query. */
  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static List<String> split(String csv) {
    return csv == null ? List.of() : Arrays.stream(csv.split(",")).map(String::trim).filter(a -> !a.isEmpty()).toList();
  }
}
