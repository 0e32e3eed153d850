package io.allot.server.distributor;

import io.micrometer.core.instrument.Counter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Invalid entries a pool's distributor found in the store (and skipped): each is counted, and warned about once.
 * Thread-safe: a background units read reports here too.
 */
final class BadData {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);
  private final String pool;
  private final Counter counter;
  /** The entries warned about (kind and value); concurrent. */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  BadData(String pool, Counter counter) {
    this.pool = pool;
    this.counter = counter;
  }

  /** Counts an invalid entry, and logs {@code message} the first time this kind of entry has this value. */
  void report(String kind, String value, String message) {
    counter.increment();
    if (warned.add(kind + "\u0000" + value)) {
      log.warn("pool={} bad data: {}", pool, message);
    }
  }
}
