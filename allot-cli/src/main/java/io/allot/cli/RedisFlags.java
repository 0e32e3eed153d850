package io.allot.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The original Go distributor's Redis flags, which {@code allot server} keeps as a drop-in (a picocli mixin): without
 * {@code -store}, or with the bare word {@code redis}, they make the store's Redis URI.
 */
final class RedisFlags {
  @Option(names = {"-redis-addrs", "--redis-addrs"}, paramLabel = "ADDRESSES", defaultValue = "127.0.0.1:6379",
      description = "Without -store: the Redis address (host:port); several, comma-separated = Redis Cluster. Default ${DEFAULT-VALUE}.")
  String redisAddrs;

  @Option(names = {"-redis-pass", "--redis-pass"}, paramLabel = "PASSWORD", defaultValue = "",
      description = "Without -store: the Redis password.")
  String redisPass;

  @Option(names = {"-redis-tls", "--redis-tls"}, arity = "0..1", fallbackValue = "true", defaultValue = "false",
      paramLabel = "BOOL", description = "Without -store: use TLS to Redis.")
  boolean redisTls;

  @Option(names = {"-redis-rootca-certs", "--redis-rootca-certs"}, paramLabel = "FILES", defaultValue = "",
      description = "Without -store: comma-separated root CA certificate files (PEM) for Redis TLS.")
  String redisRootCaCerts;

  /**
   * The Redis URI of these flags ({@link #redisUri}).
   *
   * @param clientName the Redis client name (null: none)
   * @throws BadInputException if a flag is bad
   */
  String uri(String clientName) {
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

  /** Percent-encoded (UTF-8): only letters, digits and {@code . - * _} stay, so it is safe in a user info or query. */
  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static List<String> split(String csv) {
    return csv == null ? List.of() : Arrays.stream(csv.split(",")).map(String::trim).filter(a -> !a.isEmpty()).toList();
  }
}
