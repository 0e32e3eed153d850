package io.allot.cli;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code -log LEVEL} of the commands that take it, set before the first logger is created. The format and the
 * libraries' WARN level of every command are in {@code simplelogger.properties} (slf4j-simple); system properties
 * win over that file.
 */
final class Logging {
  /** The library loggers kept at WARN unless the level is debug or trace (or above WARN). */
  static final List<String> LIBRARIES =
      List.of("com.zaxxer.hikari", "org.postgresql", "io.lettuce", "io.netty", "io.grpc", "reactor", "org.eclipse.jetty");

  private Logging() {}

  static void configure(String level) {
    String l = level == null ? "info" : level.trim().toLowerCase(Locale.ROOT);
    if (l.equals("warning")) {
      l = "warn";
    }
    if (l.equals("fatal") || l.equals("panic")) {
      l = "error";
    }
    if (!Set.of("trace", "debug", "info", "warn", "error", "off").contains(l)) {
      throw new BadInputException("-log: unknown level '" + level + "'; use trace, debug, info, warn or error");
    }
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", l);
    if (!l.equals("info") && !l.equals("warn")) { // debug and trace open them; error and off close them further
      for (String library : LIBRARIES) {
        System.setProperty("org.slf4j.simpleLogger.log." + library, l);
      }
    }
  }
}
