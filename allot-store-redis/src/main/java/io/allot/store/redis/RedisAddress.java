package io.allot.store.redis;

/**
 * One Redis server address: {@code host[:port]}, {@code [v6addr][:port]} for IPv6; the port defaults to 6379.
 *
 * @param host the host name or IP address (an IPv6 address without brackets)
 * @param port 1 to 65535
 */
record RedisAddress(String host, int port) {
  static final int DEFAULT_PORT = 6379;

  RedisAddress {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("Redis address has no host");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be 1 to 65535 but was " + port);
    }
  }

  /**
   * Parses {@code host[:port]} or {@code [v6addr][:port]}.
   *
   * @throws IllegalArgumentException naming the address and what is wrong with it
   */
  static RedisAddress parse(String address) {
    String a = address == null ? "" : address.trim();
    String host;
    String port = null;
    if (a.startsWith("[")) {
      int end = a.indexOf(']');
      if (end < 0 || (a.length() > end + 1 && a.charAt(end + 1) != ':')) {
        throw new IllegalArgumentException("bad Redis address '" + address + "': expected [v6addr]:port");
      }
      host = a.substring(1, end);
      port = a.length() > end + 1 ? a.substring(end + 2) : null;
    } else {
      int colon = a.lastIndexOf(':');
      if (colon >= 0 && a.indexOf(':') != colon) {
        throw new IllegalArgumentException("IPv6 Redis address must be bracketed: '[" + a + "]:port'");
      }
      host = colon < 0 ? a : a.substring(0, colon);
      port = colon < 0 ? null : a.substring(colon + 1);
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("bad Redis address '" + address + "': no host");
    }
    return new RedisAddress(host, port == null ? DEFAULT_PORT : parsePort(port, address));
  }

  private static int parsePort(String s, String address) {
    try {
      int port = Integer.parseInt(s);
      if (port >= 1 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("bad port '" + s + "' in Redis address '" + address + "' (1 to 65535)");
  }

  /** {@code host:port}, or {@code [v6addr]:port}. */
  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
