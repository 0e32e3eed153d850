package io.allot.cli;

import java.util.Locale;
import java.util.Set;

/** Configures slf4j-simple before the first logger is created. */
final class Logging {
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
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
    System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
    System.setProperty("org.slf4j.simpleLogger.log.io.grpc", "warn");
    System.setProperty("org.slf4j.simpleLogger.log.io.lettuce", "warn");
    System.setProperty("org.slf4j.simpleLogger.log.io.netty", "warn");
    System.setProperty("org.slf4j.simpleLogger.log.reactor", "warn");
  }
}
