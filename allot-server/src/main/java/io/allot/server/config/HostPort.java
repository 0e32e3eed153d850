package io.allot.server.config;

/** A member address: {@code host:port} (IPv6 hosts in brackets). */
public record HostPort(String host, int port) {

  /**
   * Parses {@code host:port}.
   *
   * @throws IllegalArgumentException naming the address when it is not {@code host:port} with a port in 1..65535
   */
  public static HostPort parse(String address) {
    if (address == null || address.isBlank()) {
      throw new IllegalArgumentException("member address is empty");
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("member address '" + address + "' is not host:port");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException("member address '" + address + "' is not host:port (put IPv6 hosts in brackets)");
    }
    if (host.isEmpty() || host.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/' || c == ',')) {
      throw new IllegalArgumentException("member address '" + address + "' has an invalid host");
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("member address '" + address + "' has a port that is not a number");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("member address '" + address + "' has port " + port + " outside 1..65535");
    }
    return new HostPort(host, port);
  }

  /** The gRPC target for this address. */
  public String target() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
