package io.allot.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A value loaded from files and loaded again when one of them changes (modification time or size), checked at most
 * once per {@code interval} when the value is asked for. A load that fails (a file half written during a rotation,
 * a key that does not match the certificate) keeps the value in use, is logged once, and is tried again at the next
 * check. Thread-safe.
 */
final class Watched<T> {
  private static final Logger log = LoggerFactory.getLogger(Watched.class);

  private final String what;
  private final List<Path> files;
  private final Supplier<T> load;
  private final long intervalNanos;
  /** The value in use and the stamps it was loaded from; replaced whole, read without a lock. */
  private volatile Loaded<T> current;
  /** When the files were last looked at (System.nanoTime); written under {@code this}, read without. */
  private volatile long checkedAt;
  /** The stamps whose load failed (logged once), or null; guarded by {@code this}. */
  private List<String> failed;

  private record Loaded<T>(T value, List<String> stamps, long generation) {}

  /** Loads now; a failure here is the caller's (bad input at start). */
  Watched(String what, List<Path> files, Duration interval, Supplier<T> load) {
    this.what = Objects.requireNonNull(what, "what");
    this.files = List.copyOf(files);
    this.load = Objects.requireNonNull(load, "load");
    this.intervalNanos = interval.toNanos();
    List<String> stamps = stamps();
    this.current = new Loaded<>(load.get(), stamps, 1);
    this.checkedAt = System.nanoTime();
  }

  /** The value, loaded again first if the interval has passed and a file changed. */
  T get() {
    return fresh().value;
  }

  /** How many times the value was loaded (1 at first); goes up with each picked-up change. */
  long generation() {
    return fresh().generation;
  }

  private Loaded<T> fresh() {
    Loaded<T> c = current;
    if (System.nanoTime() - checkedAt < intervalNanos) {
      return c;
    }
    synchronized (this) {
      long now = System.nanoTime();
      if (now - checkedAt < intervalNanos) {
        return current; // another thread just looked
      }
      checkedAt = now;
      List<String> stamps = stamps();
      if (stamps.equals(current.stamps) || stamps.equals(failed)) {
        return current;
      }
      try {
        current = new Loaded<>(load.get(), stamps, current.generation + 1);
        failed = null;
        log.info("TLS: {} reloaded from {}", what, files);
      } catch (RuntimeException e) {
        failed = stamps;
        log.warn("TLS: {} changed but cannot be loaded, the previous one stays in use: {}", what, e.getMessage());
      }
      return current;
    }
  }

  private List<String> stamps() {
    List<String> out = new ArrayList<>();
    for (Path f : files) {
      try {
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        out.add(a.lastModifiedTime().toMillis() + "/" + a.size() + "/" + a.fileKey()); // fileKey: a rename
      } catch (IOException e) {
        out.add("missing");
      }
    }
    return out;
  }
}
