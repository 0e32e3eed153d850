package io.allot.server.distributor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a pool's units are read, and from which {@link UnitSource}: the first source that has units for the pool
 * (the task specs, else the units list). Read again if announced changed ({@link #changed()}), never read, or at a
 * poll round when the last read was cheap (at most {@link #READ_SHARE} of the poll interval) or {@link
 * #REREAD_FACTOR} times the last read's duration ago; a costly unannounced re-read runs in the background when the
 * rounds run in a loop. A source that can tell its units are unchanged ({@link UnitSource#unchanged}) is not read at
 * poll rounds. Between changes it returns the very same {@link PoolUnits}.
 *
 * <p>Confined to the thread running the rounds, except {@link #changed()} (any thread).
 */
final class UnitsReader {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);
  /** A units read costing at most this share of the poll interval is read at every poll round. */
  static final double READ_SHARE = 0.05;
  /** A costlier one is read again, unannounced, once this many times its last read's duration has passed. */
  static final int REREAD_FACTOR = 50;

  private final List<UnitSource> sources;
  private final Duration pollInterval;
  private final String pool;

  // confined to the rounds' thread
  /** The units as last read (null: not yet), when (System.nanoTime()) and how long the read took. */
  private PoolUnits units;
  private long readAtNanos;
  private long readNanos;
  /** The background read in flight (null: none; a null result: it failed) and its thread. */
  private CompletableFuture<Read> inFlight;
  private ExecutorService background;
  /** Set by {@link #changed()} from any thread; cleared by the round that reads the units. */
  private volatile boolean dirty;

  /** A read in the background: the units it may replace, the result, whether it differs, its timing. */
  private record Read(PoolUnits of, PoolUnits units, boolean changed, long startedNanos, long nanos) {}

  /** @param sources asked in order; the last must always have units */
  UnitsReader(List<UnitSource> sources, Duration pollInterval, String pool) {
    this.sources = List.copyOf(sources);
    this.pollInterval = pollInterval;
    this.pool = pool;
  }

  /** The units changed (a hint from any thread): the next round reads them again. */
  void changed() {
    dirty = true;
  }

  /**
   * The units for a round; the same object as last time unless read again and found changed.
   *
   * @param poll      a poll round (else a change round, which reads only when announced changed)
   * @param onBackgroundRead called when a background read completes; null: never read in the background
   */
  PoolUnits units(boolean poll, Runnable onBackgroundRead) {
    long now = System.nanoTime();
    Read done = null;
    if (inFlight != null && inFlight.isDone()) {
      done = inFlight.join(); // null if it failed (logged): read again at the next poll round
      inFlight = null;
    }
    if (done != null && done.of() == units) { // else a newer read replaced the units meanwhile
      readAtNanos = done.startedNanos();
      readNanos = done.nanos();
      if (done.changed()) {
        units = done.units();
      }
    }
    if (units != null && !dirty && poll && units.source().unchanged(units)) {
      return units;
    }
    boolean cheap = readNanos <= pollInterval.toNanos() * READ_SHARE;
    boolean old = now - readAtNanos >= readNanos * REREAD_FACTOR;
    if (units != null && !dirty && poll && !cheap && old && onBackgroundRead != null) {
      // the unannounced re-read of a costly list: in the background, so no round waits for it
      if (inFlight == null) {
        readInBackground(onBackgroundRead);
      }
      return units;
    }
    boolean due = units == null || dirty || poll && (cheap || old);
    if (!due) {
      return units;
    }
    dirty = false; // before the read: a change announced during it is read next time
    PoolUnits read = read();
    readAtNanos = now;
    readNanos = System.nanoTime() - now;
    if (!read.sameAs(units)) {
      units = read;
    }
    return units;
  }

  private void readInBackground(Runnable callback) {
    PoolUnits of = units;
    inFlight = CompletableFuture.supplyAsync(() -> {
      long t0 = System.nanoTime();
      PoolUnits read = read();
      return new Read(of, read, !read.sameAs(of), t0, System.nanoTime() - t0);
    }, background());
    inFlight.whenComplete((r, e) -> {
      if (e != null) {
        log.warn("pool={} reading the units list failed: {}", pool, e.toString());
      }
      callback.run();
    });
    inFlight = inFlight.exceptionally(e -> null);
  }

  private PoolUnits read() {
    for (UnitSource s : sources) {
      var read = s.read();
      if (read.isPresent()) {
        return read.get();
      }
    }
    throw new IllegalStateException("no unit source answered for pool " + pool);
  }

  private ExecutorService background() {
    if (background == null) {
      background = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "allot-units-" + pool);
        t.setDaemon(true);
        return t;
      });
    }
    return background;
  }

  /** Stops the background reader, if any. */
  void close() {
    if (background != null) {
      background.shutdownNow();
      background = null;
    }
  }
}
