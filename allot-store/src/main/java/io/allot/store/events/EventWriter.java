package io.allot.store.events;

import io.allot.store.Store;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes events best-effort: the history is for people, so a store that fails while an event is written never fails
 * the caller's path. A failure is logged at WARN at most once a minute (with how many were lost since the last
 * warning); bad input (an empty actor) is a programming error and is thrown. A store without an event history (its
 * {@code events()} or {@code append} throw {@link UnsupportedOperationException}, e.g. a test double) is written to
 * no more. Thread-safe.
 */
public final class EventWriter {
  private static final Logger log = LoggerFactory.getLogger(EventWriter.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Supplier<Events> events;
  private final EventRetention retention;
  private final LongSupplier nanos;
  /** When the last failure was logged (System.nanoTime), or Long.MIN_VALUE: CAS-updated. */
  private final AtomicLong lastWarn = new AtomicLong(Long.MIN_VALUE);
  /** Set once the store says it has no event history. */
  private volatile boolean unsupported;
  /** Failures since the last warning. */
  private final AtomicLong lost = new AtomicLong();

  /** A writer into {@code events} keeping {@code retention}. */
  public EventWriter(Events events, EventRetention retention) {
    this(events, retention, System::nanoTime);
  }

  EventWriter(Events events, EventRetention retention, LongSupplier nanos) {
    this(supplier(Objects.requireNonNull(events, "events")), retention, nanos);
  }

  private static Supplier<Events> supplier(Events events) {
    return () -> events;
  }

  private EventWriter(Supplier<Events> events, EventRetention retention, LongSupplier nanos) {
    this.events = events;
    this.retention = Objects.requireNonNull(retention, "retention");
    this.nanos = nanos;
  }

  /** A writer into {@code store}'s events with the {@link EventRetention#DEFAULT default retention}. */
  public static EventWriter of(Store store) {
    Objects.requireNonNull(store, "store");
    return new EventWriter(store::events, EventRetention.DEFAULT, System::nanoTime);
  }

  /** Writes {@code event}; empty if the store failed (logged, at most once a minute). */
  public Optional<RecordedEvent> write(NewEvent event) {
    Objects.requireNonNull(event, "event");
    if (unsupported) {
      return Optional.empty();
    }
    try {
      return Optional.of(events.get().append(event, retention));
    } catch (UnsupportedOperationException e) {
      unsupported = true;
      log.debug("no event history in this store: {}", e.toString());
      return Optional.empty();
    } catch (RuntimeException e) {
      long n = lost.incrementAndGet();
      long now = nanos.getAsLong();
      long last = lastWarn.get();
      if ((last == Long.MIN_VALUE || now - last >= WARN_EVERY_NANOS) && lastWarn.compareAndSet(last, now)) {
        lost.addAndGet(-n);
        log.warn("could not record {} event(s) in the event history (last: {} {}): {}", n, event.kind().wire(),
            event.subject(), e.toString());
      }
      return Optional.empty();
    }
  }

  /**
   * Writes {@code event} later, on one daemon thread shared by every writer of the process, so that a caller holding a
   * lock (a member fencing itself, perhaps because the store is unreachable) never waits for the store. At most
   * {@value #LATER_QUEUE} events wait; more are dropped (counted as lost).
   */
  public void writeLater(NewEvent event) {
    Objects.requireNonNull(event, "event");
    try {
      Later.EXECUTOR.execute(() -> write(event));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      lost.incrementAndGet();
    }
  }

  /** The most events waiting for {@link #writeLater}. */
  public static final int LATER_QUEUE = 1000;

  /** The shared thread of {@link #writeLater}, started on first use. */
  private static final class Later {
    static final java.util.concurrent.ExecutorService EXECUTOR = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
        TimeUnit.MILLISECONDS, new java.util.concurrent.ArrayBlockingQueue<>(LATER_QUEUE), r -> {
          Thread t = new Thread(r, "allot-event-writer");
          t.setDaemon(true);
          return t;
        });
  }

  /** Writes an event of {@code kind} (see {@link NewEvent} for the fields). */
  public Optional<RecordedEvent> write(String pool, EventKind kind, String actor, String subject, String detail) {
    return write(new NewEvent(pool, kind, actor, subject, detail));
  }

  /** How many writes failed since the last warning (for tests). */
  long lostSinceWarning() {
    return lost.get();
  }
}
