package io.allot.worker;

import io.allot.testkit.overlap.OwnershipLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A listener that records events, keeps the units "running" in an {@link OwnershipLog}, and optionally confirms
 * REASSIGNED/RELEASED/SHUTDOWN stops itself (at once or after a random delay on another thread), with the stop's token.
 */
final class Recorder implements UnitListener {
  private final String name;
  private final OwnershipLog intervals;
  private final List<UnitEvent> events = new ArrayList<>();
  private final List<String> leaseLosses = new ArrayList<>();
  final Map<String, Long> running = new ConcurrentHashMap<>();
  /** Unit -> token of its last stop that awaits a confirmation. */
  private final Map<String, Long> unconfirmed = new ConcurrentHashMap<>();
  private volatile Divider divider;
  private volatile boolean autoConfirm;
  private volatile ScheduledExecutorService delayer;
  private volatile int maxDelayMillis;
  private volatile Consumer<UnitStop> onLeaseLostStop = s -> {};

  Recorder(String name, OwnershipLog intervals) {
    this.name = name;
    this.intervals = intervals;
  }

  Recorder attach(Divider d) {
    this.divider = d;
    return this;
  }

  /** Confirms stops at once, on the event thread. */
  Recorder autoConfirm() {
    this.autoConfirm = true;
    return this;
  }

  /** Confirms stops after 0..maxDelayMillis ms on {@code delayer}. */
  Recorder confirmLater(ScheduledExecutorService delayer, int maxDelayMillis) {
    this.autoConfirm = true;
    this.delayer = delayer;
    this.maxDelayMillis = maxDelayMillis;
    return this;
  }

  Recorder onLeaseLostStop(Consumer<UnitStop> c) {
    this.onLeaseLostStop = c;
    return this;
  }

  String name() {
    return name;
  }

  @Override
  public void onStart(UnitStart start) {
    synchronized (events) {
      events.add(start);
    }
    intervals.open(start.unit(), name, start.token());
    running.put(start.unit(), start.token());
  }

  @Override
  public void onStop(UnitStop stop) {
    synchronized (events) {
      events.add(stop);
    }
    switch (stop.reason()) {
      case LEASE_LOST -> {
        onLeaseLostStop.accept(stop);
        stopNow(stop.unit());
      }
      case REASSIGNED, RELEASED, SHUTDOWN -> {
        unconfirmed.put(stop.unit(), stop.token());
        if (autoConfirm) {
          ScheduledExecutorService d = delayer;
          if (d == null) {
            confirm(stop);
          } else {
            d.schedule(() -> confirm(stop), ThreadLocalRandom.current().nextInt(maxDelayMillis + 1),
                TimeUnit.MILLISECONDS);
          }
        }
      }
    }
  }

  @Override
  public void onLeaseLost(String reason) {
    synchronized (leaseLosses) {
      leaseLosses.add(reason);
    }
  }

  /** The application stopped the run and confirms it (stop first, then confirm: that is the contract). */
  boolean confirm(UnitStop stop) {
    return confirm(stop.unit(), stop.token());
  }

  /** Confirms the last stop of {@code unit} that awaits a confirmation. */
  boolean confirm(String unit) {
    Long token = unconfirmed.get(unit);
    if (token == null) {
      throw new IllegalStateException(name + ": no stop of " + unit + " awaits a confirmation");
    }
    return confirm(unit, token);
  }

  private boolean confirm(String unit, long token) {
    unconfirmed.remove(unit, token);
    if (Long.valueOf(token).equals(running.get(unit))) {
      stopNow(unit); // only the run this confirmation names
    }
    return divider.confirmStop(unit, token);
  }

  private void stopNow(String unit) {
    running.remove(unit);
    intervals.close(unit, name);
  }

  List<UnitEvent> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  List<UnitStop> stops(StopReason reason) {
    return events().stream().filter(e -> e instanceof UnitStop s && s.reason() == reason).map(e -> (UnitStop) e).toList();
  }

  List<UnitStart> starts() {
    return events().stream().filter(e -> e instanceof UnitStart).map(e -> (UnitStart) e).toList();
  }

  List<String> leaseLosses() {
    synchronized (leaseLosses) {
      return List.copyOf(leaseLosses);
    }
  }
}
