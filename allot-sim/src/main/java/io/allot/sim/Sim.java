package io.allot.sim;

import java.util.Comparator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * The discrete-event kernel: a virtual nanosecond clock, a queue of events ordered by (time, sequence number) and the
 * one source of randomness of a run ({@code new Random(seed)}). Single-threaded: every event runs to completion on the
 * caller's thread, so a run is a function of its seed.
 *
 * <p>An event may belong to an {@link Actor} (a simulated process or thread group). The event of an actor that is
 * {@linkplain Actor#gone() gone} is dropped; the event of a paused actor is held back until the pause ends and then
 * runs in its original order (the events held back keep their order, and come before anything the actor does after
 * it resumes).
 *
 * <p>Not thread-safe; all state is confined to the thread that runs the simulation.
 */
public final class Sim {

  /** Who an event belongs to. */
  public interface Actor {
    /** True once the actor is gone for good (a killed process): its events are dropped. */
    boolean gone();

    /** Until when (virtual nanos) the actor is paused; anything in the past means "not paused". */
    long pausedUntil();
  }

  /** A scheduled event; {@link #cancel()} drops it. */
  public static final class Event {
    private final Actor actor;
    private final Runnable action;
    private long at;
    private long seq;
    private boolean requeued;
    private boolean cancelled;

    private Event(long at, long seq, Actor actor, Runnable action) {
      this.at = at;
      this.seq = seq;
      this.actor = actor;
      this.action = action;
    }

    /** Drops the event if it has not run yet. */
    public void cancel() {
      cancelled = true;
    }

    /** When it is due (virtual nanos). */
    public long at() {
      return at;
    }

    /** True once cancelled. */
    public boolean cancelled() {
      return cancelled;
    }
  }

  private static final Comparator<Event> ORDER = (a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
      : Long.compare(a.seq, b.seq);

  /** The virtual time at which every run starts: far from 0 so that no "0 = unset" can be confused with a time. */
  public static final long EPOCH = 1_000_000_000_000L;

  private final PriorityQueue<Event> queue = new PriorityQueue<>(ORDER);
  private final Random random;
  private long now = EPOCH;
  private long seq;
  private long executed;
  /** What happened how often, by name, sorted (for the report). */
  private final Map<String, Long> counts = new TreeMap<>();

  /** A kernel whose randomness comes from {@code seed} only. */
  public Sim(long seed) {
    this.random = new Random(seed);
  }

  /** The virtual clock (nanos). */
  public long now() {
    return now;
  }

  /** The run's only source of randomness. */
  public Random random() {
    return random;
  }

  /** Events run so far. */
  public long executed() {
    return executed;
  }

  /** Schedules {@code action} at {@code at} (not before now) for {@code actor} (null: nobody's, never held back). */
  public Event at(long at, Actor actor, Runnable action) {
    Event e = new Event(Math.max(at, now), seq++, actor, action);
    queue.add(e);
    return e;
  }

  /** Schedules {@code action} {@code delayNanos} from now. */
  public Event after(long delayNanos, Actor actor, Runnable action) {
    return at(now + Math.max(0, delayNanos), actor, action);
  }

  /** The time of the next event, or {@link Long#MAX_VALUE} if there is none. */
  public long nextAt() {
    Event e = queue.peek();
    return e == null ? Long.MAX_VALUE : e.at;
  }

  /**
   * Runs the next event that is due; false if the queue is empty. An event held back by a pause or dropped for a gone
   * actor counts as no event (the method goes on to the next one).
   */
  public boolean step() {
    while (true) {
      Event e = queue.poll();
      if (e == null) {
        return false;
      }
      if (e.cancelled) {
        continue;
      }
      now = e.at;
      Actor a = e.actor;
      if (a != null) {
        if (a.gone()) {
          continue;
        }
        long until = a.pausedUntil();
        if (e.at < until || (e.at == until && !e.requeued)) {
          // held back: requeued at the pause's end, in the order the events come out of the queue (their own order);
          // the same object, so that cancel() still reaches it
          e.at = until;
          e.seq = seq++;
          e.requeued = true;
          queue.add(e);
          continue;
        }
      }
      executed++;
      e.action.run();
      return true;
    }
  }

  /** Counts one {@code what} (for the report: fences, timeouts, withheld starts...). */
  public void count(String what) {
    counts.merge(what, 1L, Long::sum);
  }

  /** The counts so far, by name. */
  public Map<String, Long> counts() {
    return new TreeMap<>(counts);
  }

  /** A uniformly random duration in [{@code min}, {@code max}) nanos. */
  public long uniform(long min, long max) {
    return max <= min ? min : min + (long) (random.nextDouble() * (max - min));
  }

  /** True with probability {@code p}. */
  public boolean chance(double p) {
    return p > 0 && random.nextDouble() < p;
  }

  /** Milliseconds as nanos. */
  public static long ms(double millis) {
    return (long) (millis * 1_000_000L);
  }
}
