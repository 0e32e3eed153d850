package io.allot.store.spi;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * A store's connect-time findings, said once per process per store: a process that opens the same store several
 * times (a command line, a server with a pinger and an API), or logs a finding and prints it too, says it once.
 * Thread-safe.
 */
public final class OnceWarnings {
  // every (store, finding) said so far in this process; a concurrent set
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  private OnceWarnings() {}

  /**
   * True the first time in this process that {@code finding} is said about the store {@code where} (its
   * {@code describe()}); false ever after.
   */
  public static boolean first(String where, String finding) {
    return SAID.add(where + "\n" + finding);
  }

  /**
   * Logs {@code line} at WARN on {@code log} the first time {@code finding} is said about {@code where}; a logger
   * that would not show it takes nothing, so whoever says it next (the command line) still can.
   */
  public static void warn(Logger log, String where, String finding, String line) {
    if (log.isWarnEnabled() && first(where, finding)) {
      log.warn("{}", line);
    }
  }
}
