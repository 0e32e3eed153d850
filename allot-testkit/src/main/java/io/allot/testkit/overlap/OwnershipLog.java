package io.allot.testkit.overlap;

import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Who runs which unit, recorded live by the owners themselves in one JVM (in-process workers): {@link #open} when
 * an owner starts a unit, {@link #close} once it has stopped it (before it confirms or releases). {@link #check()}
 * runs the {@link OverlapChecker} over what was recorded; intervals still open end at the time of the check.
 *
 * <pre>{@code
 * OwnershipLog log = new OwnershipLog();
 * // in each worker's listener: log.open(unit, member, token) ... log.close(unit, member)
 * assertThat(log.check().violations()).isEmpty();
 * }</pre>
 *
 * Thread-safe. A close of a unit the owner does not run is ignored (a stop may be reported twice).
 */
public final class OwnershipLog {
  private final LongSupplier clock;
  /** Guarded by {@code this}. */
  private final OpenIntervals intervals = new OpenIntervals();

  /** A log on {@link System#nanoTime()}. */
  public OwnershipLog() {
    this(System::nanoTime);
  }

  /** A log on {@code clock} (a fake one for tests without threads); it must not go backwards. */
  public OwnershipLog(LongSupplier clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** {@code owner} starts running {@code unit} with fencing token {@code token}. */
  public synchronized void open(String unit, String owner, long token) {
    intervals.start(owner, unit, token, clock.getAsLong());
  }

  /** {@code owner} has stopped running {@code unit}. */
  public synchronized void close(String unit, String owner) {
    intervals.stop(owner, unit, clock.getAsLong());
  }

  /** {@code owner} stopped every unit at once (it lost its lease, it died). */
  public synchronized void closeAll(String owner) {
    intervals.stopAll(owner, clock.getAsLong());
  }

  /** Unit to the owner running it now. */
  public synchronized Map<String, String> running() {
    return Map.copyOf(intervals.running());
  }

  /** How many intervals were opened so far. */
  public synchronized int intervals() {
    return intervals.count();
  }

  /** The check of everything recorded so far. */
  public synchronized OverlapChecker.Report check() {
    return OverlapChecker.check(intervals.all(clock.getAsLong()), intervals.problems());
  }
}
