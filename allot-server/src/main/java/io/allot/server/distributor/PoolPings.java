package io.allot.server.distributor;

import io.allot.server.ping.Pinger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The pings of one pool's members without a record (original-style services), judged by its {@link PingJudge}. A
 * round pings the members it must ({@link #round}); with {@link #inBackground} set, the poll rounds' pings of members
 * already pinged go on in the background and the round after them records them.
 *
 * <p>Confined to the thread running the rounds, except the fields that say otherwise.
 */
final class PoolPings {
  private final Pinger pinger;
  private final PingJudge judge;
  private final PoolMetrics metrics;
  /** Called when a background ping round completes; set before the first round, read by any thread. */
  private volatile Runnable done;
  /** The background ping round in flight (null: none) and when it started. */
  private CompletableFuture<List<Pinger.Result>> inFlight;
  private long startedNanos;
  /** Whether the last background ping round had a failure; written by the pinger thread completing it. */
  private volatile boolean lastFailed;
  /** The duration of the last ping round. */
  private volatile long lastRoundNanos;

  /** @param downAfter failed pings in a row that mark a member down ({@link PingJudge}) */
  PoolPings(String pool, Pinger pinger, int downAfter, PoolMetrics metrics) {
    this.pinger = pinger;
    this.metrics = metrics;
    this.judge = new PingJudge(pool, downAfter);
  }

  /** The verdicts. */
  PingJudge judge() {
    return judge;
  }

  /** See {@code PoolDistributor.pingInBackground}. */
  void inBackground(Runnable done) {
    this.done = done;
  }

  /** The callback of background work (null: the rounds run by hand, nothing runs in the background). */
  Runnable background() {
    return done;
  }

  /** Duration of the last ping round (all members in parallel). */
  long lastRoundNanos() {
    return lastRoundNanos;
  }

  /**
   * The pings of a round over {@code pinged} (the members without a record): records a completed background round,
   * forgets members no longer pinged, pings the never-pinged ones at once (a member new in the list is pinged before
   * it can get units), and at a poll round the known ones too: in the background if set so, else at once.
   */
  void round(Set<String> pinged, boolean poll) {
    boolean pinging = collect();
    judge.retain(pinged);
    Set<String> fresh = judge.neverPinged(pinged);
    Runnable callback = done;
    if (callback == null) {
      Set<String> now = poll ? pinged : fresh;
      if (!now.isEmpty()) {
        pingAll(now);
      }
      return;
    }
    if (!fresh.isEmpty()) {
      pingAll(fresh);
    }
    if (poll && !pinging && pinged.size() > fresh.size()) {
      Set<String> known = new LinkedHashSet<>(pinged);
      known.removeAll(fresh);
      startedNanos = System.nanoTime();
      inFlight = start(known);
      inFlight.thenAccept(results -> {
        // a round only if a verdict may change: a ping failed, or one failed in the round before (it may be back)
        boolean failed = results.stream().anyMatch(r -> !r.ok());
        if (failed || lastFailed) {
          callback.run();
        }
        lastFailed = failed;
      });
    }
  }

  /** Pings {@code pinged} in parallel and records the outcomes. */
  private void pingAll(Set<String> pinged) {
    long p0 = System.nanoTime();
    record(start(pinged).join());
    lastRoundNanos = System.nanoTime() - p0;
  }

  /** Pings {@code pinged} in parallel; the future completes (never exceptionally) when every ping did. */
  private CompletableFuture<List<Pinger.Result>> start(Set<String> pinged) {
    List<CompletableFuture<Pinger.Result>> results = new ArrayList<>(pinged.size());
    for (String m : pinged) {
      results.add(pinger.ping(m));
    }
    return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> results.stream().map(CompletableFuture::join).toList());
  }

  private void record(List<Pinger.Result> results) {
    int failed = 0;
    for (Pinger.Result r : results) {
      metrics.ping.record(Duration.ofNanos(r.nanos()));
      if (judge.record(r)) {
        failed++;
      }
    }
    metrics.pingFailures.record(failed);
  }

  /** Records the background ping round if it completed; true if one is still running. */
  private boolean collect() {
    CompletableFuture<List<Pinger.Result>> f = inFlight;
    if (f == null) {
      return false;
    }
    if (!f.isDone()) {
      return true;
    }
    inFlight = null;
    record(f.join());
    lastRoundNanos = System.nanoTime() - startedNanos;
    return false;
  }
}
