package io.allot.worker;

import java.util.concurrent.atomic.AtomicLong;

/** The counters behind {@link DividerStats}: atomics, incremented from any thread, never under a lock's rules. */
final class Counters {
  final AtomicLong registrations = new AtomicLong();
  final AtomicLong leaseLosses = new AtomicLong();
  final AtomicLong renewFailures = new AtomicLong();
  final AtomicLong claims = new AtomicLong();
  final AtomicLong claimsRefused = new AtomicLong();
  /** Units started on a push handoff's grant announcement (also counted in {@link #claims}). */
  final AtomicLong grants = new AtomicLong();
  final AtomicLong releases = new AtomicLong();
  final AtomicLong storeErrors = new AtomicLong();
  /** Told each acknowledged lease renewal's round trip in nanoseconds ({@link DividerMeters}); volatile. */
  volatile java.util.function.LongConsumer renewNanos = n -> { };
  /** Told each handoff gap in nanoseconds: from a unit's first refused claim to its start; volatile. */
  volatile java.util.function.LongConsumer handoffGapNanos = n -> { };

  DividerStats snapshot() {
    return new DividerStats(registrations.get(), leaseLosses.get(), renewFailures.get(), claims.get(),
        claimsRefused.get(), releases.get(), storeErrors.get());
  }
}
