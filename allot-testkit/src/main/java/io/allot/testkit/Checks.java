package io.allot.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** Builder argument checks: an {@link IllegalArgumentException} naming the setting and the bad value. */
final class Checks {
  private Checks() {}

  /** A port, or 0 for a free one. */
  static int port(int port) {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be in 0..65535 (0: a free one) but was " + port);
    }
    return port;
  }

  /** A duration of at least {@code min}. */
  static Duration atLeast(String name, Duration d, Duration min) {
    if (d == null || d.compareTo(min) < 0) {
      throw new IllegalArgumentException(name + " must be at least " + min.toMillis() + " ms but was " + d);
    }
    return d;
  }

  /** An IPv4 address literal ({@code 10.203.0.1}). */
  static String ipv4(String name, String address) {
    String octet = "(25[0-5]|2[0-4]\\d|1?\\d?\\d)";
    if (address == null || !address.matches(octet + "(\\." + octet + "){3}")) {
      throw new IllegalArgumentException(name + " must be an IPv4 address such as 10.203.0.1 but was '" + address
          + "'");
    }
    return address;
  }

  /** Command-line arguments, none null. */
  static List<String> args(String... args) {
    for (String a : args) {
      Objects.requireNonNull(a, "args must not contain null");
    }
    return List.of(args);
  }
}
