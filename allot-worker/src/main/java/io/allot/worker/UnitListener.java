package io.allot.worker;

import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

/**
 * Receives a {@link Divider}'s unit events. Every callback of one divider runs on one SDK thread, in order, so a
 * unit's {@link UnitStart} always comes before its {@link UnitStop}. Callbacks must return quickly (hand the work to
 * another thread): a blocked callback delays every later event, including an urgent
 * {@link StopReason#LEASE_LOST}. An exception thrown by a callback is logged and otherwise ignored.
 */
public interface UnitListener {

  /** The member now owns {@code start.unit()}: start running it. */
  void onStart(UnitStart start);

  /** The member must stop {@code stop.unit()}; see {@link StopReason} for what to confirm. */
  void onStop(UnitStop stop);

  /**
   * The member fenced itself (after the {@link StopReason#LEASE_LOST} stops of its units); it registers again with
   * a new session on its own. For alerting; the default does nothing.
   *
   * @param reason what happened, for a log line
   */
  default void onLeaseLost(String reason) {}

  /**
   * A listener of two callbacks, for example {@code UnitListener.of(this::start, this::stop)}; it does nothing on
   * {@link #onLeaseLost}.
   */
  static UnitListener of(Consumer<? super UnitStart> onStart, Consumer<? super UnitStop> onStop) {
    Objects.requireNonNull(onStart, "onStart");
    Objects.requireNonNull(onStop, "onStop");
    return new UnitListener() {
      @Override
      public void onStart(UnitStart start) {
        onStart.accept(start);
      }

      @Override
      public void onStop(UnitStop stop) {
        onStop.accept(stop);
      }
    };
  }

  /**
   * A listener that puts every event into {@code queue}, for applications that prefer to pull events from their own
   * thread. Use an unbounded queue (for example a {@link java.util.concurrent.LinkedBlockingQueue}): a full queue
   * blocks the SDK's event thread, and with it every later event.
   */
  static UnitListener into(BlockingQueue<? super UnitEvent> queue) {
    Objects.requireNonNull(queue, "queue");
    Consumer<UnitEvent> put = e -> {
      try {
        queue.put(e);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while queueing " + e, ex);
      }
    };
    return of(put, put);
  }
}
