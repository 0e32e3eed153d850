package io.allot.jobs;

import io.allot.jobs.v1.JobEndpointGrpc;
import io.allot.jobs.v1.Result;
import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobDispatcher}'s endpoints: one {@link EndpointStream} per wanted endpoint address over a channel of its
 * own, and the credits. The rules: never more jobs without a result on a stream than its endpoint's capacity; claim no
 * more than the free credits of all streams less the claimed jobs still waiting for one ({@code pending}); give each
 * job to the stream with the most free credits; a stream that breaks or is silent for three heartbeats is dropped with
 * its jobs, which go to the {@link DroppedJobs}: given back to the queue once the endpoint has surely stopped them
 * ({@link EndpointStopTime}: every deadline sent on the stream is recorded there), never before (a cut network looks
 * like a dead endpoint that may still run them). An endpoint's deadline is at most {@code endpointDeadline}, so that
 * happens about that long after the endpoint's last Heartbeat, whatever the lock TTL.
 *
 * <p>Guards: one lock ({@code lock}) guards the streams, their credits and outstanding jobs, {@code pending} and
 * {@code lingered}; it is never held across a store call (sends under it are gRPC's non-blocking {@code onNext}).
 * {@code channels} is touched by the control thread and by {@link #closeAll()} (after the control thread stopped)
 * only.
 */
final class EndpointStreams {
  private static final Logger log = LoggerFactory.getLogger(EndpointStreams.class);

  private final String queue;
  private final String dispatcherId;
  private final Duration lockTtl;
  private final Duration heartbeat;
  private final long endpointDeadlineMillis;
  private final long reactionNanos;
  private final DroppedJobs dropped;
  private final Function<String, ManagedChannel> channelFactory;
  /** Sent on every stream (the endpoint's token), or null. */
  private final CallCredentials credentials;
  private final LockKeeper locks;
  private final Completer completer;
  private final Counter abandoned;
  private final DispatchRefusals refusals;

  private final Object lock = new Object();
  /** Streams by endpoint address; guarded by {@code lock}. */
  private final Map<String, EndpointStream> streams = new HashMap<>();
  /** Claimed jobs not sent yet (no free credit at the moment); guarded by {@code lock}. */
  private final ArrayDeque<HeldLock> pending = new ArrayDeque<>();
  /** The claim loop waited a moment for more credits last time; guarded by {@code lock}. */
  private boolean lingered;
  /** Channels by address; the control thread's and close's. */
  private final Map<String, ManagedChannel> channels = new HashMap<>();

  /**
   * @param endpointDeadline the longest deadline an endpoint is given (less when a lock is kept for less)
   * @param reaction         the endpoint's reaction past its deadline ({@link EndpointStopTime})
   * @param credentials      sent on every stream (the endpoint's token), or null
   * @param dropped          where the jobs of dropped streams wait for their endpoint to have stopped them
   * @param refusals         where streams the endpoints refuse are counted and told
   */
  EndpointStreams(String queue, String dispatcherId, Duration lockTtl, Duration heartbeat, Duration endpointDeadline,
      Duration reaction, Function<String, ManagedChannel> channelFactory, CallCredentials credentials,
      LockKeeper locks, Completer completer, DroppedJobs dropped, Counter abandoned, DispatchRefusals refusals) {
    this.queue = queue;
    this.dispatcherId = dispatcherId;
    this.lockTtl = lockTtl;
    this.heartbeat = heartbeat;
    this.endpointDeadlineMillis = endpointDeadline.toMillis();
    this.reactionNanos = reaction.toNanos();
    this.dropped = dropped;
    this.channelFactory = channelFactory;
    this.credentials = credentials;
    this.locks = locks;
    this.completer = completer;
    this.abandoned = abandoned;
    this.refusals = refusals;
  }

  // ------------------------------------------------------------------ credits

  /**
   * How many jobs the claim loop may claim now: the free credits (at most {@code batchSize}), or 0 after waiting up
   * to {@code waitMillis} for some (none free, or not leading). When few credits are free while results are coming in,
   * it waits a moment once for more rather than claim one job per round trip.
   */
  int awaitWant(int batchSize, BooleanSupplier leading, long waitMillis) throws InterruptedException {
    synchronized (lock) {
      int free = leading.getAsBoolean() ? freeCredits() : 0;
      if (free <= 0) {
        lock.wait(waitMillis);
        return 0;
      }
      int want = Math.min(batchSize, free);
      if (want < Math.min(batchSize, totalCredits()) / 2 && outstandingOnStreams() > 0 && !lingered) {
        lingered = true;
        lock.wait(1);
        return 0;
      }
      lingered = false;
      return want;
    }
  }

  /** Wakes a claim loop waiting for credits. */
  void wake() {
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  /** Queues claimed jobs and sends what the credits allow. */
  void push(List<HeldLock> claimed) {
    synchronized (lock) {
      pending.addAll(claimed);
      drainPending();
    }
  }

  /** Guarded by {@code lock}. */
  private int freeCredits() {
    int free = 0;
    for (EndpointStream s : streams.values()) {
      free += s.free();
    }
    return free - pending.size();
  }

  /** The credits of all usable streams. Guarded by {@code lock}. */
  private int totalCredits() {
    int n = 0;
    for (EndpointStream s : streams.values()) {
      if (s.open && s.ready && !s.draining) {
        n += s.capacity;
      }
    }
    return n;
  }

  /** Guarded by {@code lock}. */
  private int outstandingOnStreams() {
    int n = 0;
    for (EndpointStream s : streams.values()) {
      n += s.outstanding.size();
    }
    return n;
  }

  /** Sends pending jobs to the streams with the most free credits. Guarded by {@code lock}. */
  private void drainPending() {
    while (!pending.isEmpty()) {
      EndpointStream best = null;
      for (EndpointStream s : streams.values()) {
        if (s.free() > 0 && (best == null || s.free() > best.free())) {
          best = s;
        }
      }
      if (best == null) {
        return;
      }
      HeldLock l = pending.poll();
      if (l.stopRequested()) {
        continue; // lost while it waited: the lock keeper let it go
      }
      best.outstanding.put(EndpointStream.AttemptId.of(l), l);
      long stopAfter = stopAfterMillis(l.heldUntilNanos() - locks.clock().getAsLong());
      best.send(Wire.job(l.job(), lockTtl, stopAfter));
      best.stopTime.sent(locks.clock().getAsLong(), stopAfter); // after the send: the endpoint counts from receipt
    }
  }

  /**
   * An endpoint's deadline for locks surely kept {@code heldNanos} more: at most {@code endpointDeadline}, and
   * {@link Wire#stopAfterMillis} (the lock less the margin) when that is shorter.
   */
  private long stopAfterMillis(long heldNanos) {
    return Math.min(endpointDeadlineMillis, Wire.stopAfterMillis(heldNanos, lockTtl));
  }

  // ------------------------------------------------------------------ what the streams say

  void ready(EndpointStream s, int capacity) {
    refusals.accepted(s.address);
    synchronized (lock) {
      if (!s.ready || s.capacity != capacity) {
        log.info("queue {}: endpoint {} ({}) ready, capacity {}", queue, s.address, s.endpointId(), capacity);
      }
      s.capacity = Math.max(0, capacity);
      s.ready = true;
      drainPending();
      lock.notifyAll();
    }
  }

  /** A result: frees its credit, then goes to the completer with the attempt's lock (null if not one of s's). */
  void result(EndpointStream s, Result r) {
    HeldLock l;
    synchronized (lock) {
      l = s.outstanding.remove(new EndpointStream.AttemptId(r.getKey(), r.getToken()));
      if (l != null) {
        drainPending();
        lock.notifyAll();
      }
    }
    completer.complete(s, l, r);
  }

  /**
   * Drops a stream and its jobs: no deadline is sent on it any more, and its jobs go to the {@link DroppedJobs} with
   * the instant its endpoint has surely stopped them.
   */
  void broken(EndpointStream s, String why) {
    List<HeldLock> jobs;
    synchronized (lock) {
      if (!s.open) {
        return;
      }
      s.open = false;
      streams.remove(s.address, s);
      jobs = new ArrayList<>(s.outstanding.values());
      s.outstanding.clear();
      lock.notifyAll();
      if (!jobs.isEmpty()) {
        dropped.add(jobs, s.endpointId(), why, s.stopTime); // under the lock: no deadline is being sent on s
      }
    }
    if (jobs.isEmpty() && DispatchRefusals.isRefusal(why)) {
      refusals.refused(s.address, why);
    } else if (jobs.isEmpty()) {
      log.debug("queue {}: stream to endpoint {} ended ({})", queue, s.address, why);
    }
  }

  /** The lock keeper found {@code l} lost: it is not sent if still pending, and its endpoint is told to stop. */
  void lost(HeldLock l, String why) {
    EndpointStream on = null;
    synchronized (lock) {
      if (!pending.remove(l)) {
        EndpointStream.AttemptId id = EndpointStream.AttemptId.of(l);
        for (EndpointStream s : streams.values()) {
          if (s.outstanding.get(id) == l) {
            on = s;
          }
        }
      }
    }
    if (on != null) {
      on.send(Wire.cancel(l.key(), l.token(), why));
    }
  }

  /** Drops the claimed jobs not sent yet (the lease went): left to expire. */
  void dropPending() {
    List<HeldLock> unsent;
    synchronized (lock) {
      unsent = new ArrayList<>(pending);
      pending.clear();
      lock.notifyAll();
    }
    unsent.forEach(locks::abandon);
    if (!unsent.isEmpty()) {
      abandoned.increment(unsent.size());
    }
  }

  // ------------------------------------------------------------------ the control thread

  /**
   * Sends every open stream a Heartbeat (the control thread, right after the lock keeper's pass): its endpoint's
   * deadline is the shortest time a lock of the stream's jobs is surely kept from now (the lock TTL if it has none),
   * less the margin, so the endpoint stops their handlers before any of those locks can expire.
   */
  void heartbeat() {
    synchronized (lock) {
      streams.values().forEach(this::beat);
    }
  }

  /** Sends {@code s} a Heartbeat unless it was dropped. Guarded by {@code lock} (no job is sent meanwhile). */
  private void beat(EndpointStream s) {
    if (s.open) {
      long stopAfter = stopAfterMillis(keptFor(s, locks.clock().getAsLong()));
      s.send(Wire.heartbeat(stopAfter));
      s.stopTime.sent(locks.clock().getAsLong(), stopAfter); // after the send: the endpoint counts from receipt
    }
  }

  /**
   * How long every lock of {@code s}'s jobs is surely kept from {@code now}; lost ones (their Cancel was sent) are
   * left out. Guarded by {@code lock}.
   */
  private long keptFor(EndpointStream s, long now) {
    long kept = lockTtl.toNanos();
    for (HeldLock l : s.outstanding.values()) {
      if (!l.stopRequested()) {
        kept = Math.min(kept, l.heldUntilNanos() - now);
      }
    }
    return kept;
  }

  /**
   * Follows the wanted endpoints: opens streams to new ones (while leading), drains and ends streams no longer wanted
   * (once their jobs are back), drops silent ones, and shuts unused channels.
   *
   * @param wanted the endpoints now, or null if they could not be read (only silent streams are dropped)
   */
  void reconcile(Set<String> wanted, boolean leading, long leaseToken) {
    List<EndpointStream> toEnd = new ArrayList<>();
    List<EndpointStream> silent = new ArrayList<>();
    long now = System.nanoTime();
    long silence = heartbeat.toNanos() * 3;
    synchronized (lock) {
      for (EndpointStream s : new ArrayList<>(streams.values())) {
        if (now - s.lastHeardNanos() > silence) {
          silent.add(s);
        } else if (wanted != null && (!wanted.contains(s.address) || !leading)) {
          s.draining = true;
          if (s.outstanding.isEmpty()) {
            toEnd.add(s);
            streams.remove(s.address, s);
            s.open = false;
          }
        }
      }
    }
    for (EndpointStream s : silent) {
      log.warn("queue {}: endpoint {} sent nothing for {} ms (three heartbeats): dropping its stream", queue,
          s.address, silence / 1_000_000);
      broken(s, "silent for more than " + silence / 1_000_000 + " ms");
      s.cancel("silent");
    }
    toEnd.forEach(EndpointStream::end);
    if (wanted == null) {
      return;
    }
    if (leading) {
      for (String address : wanted) {
        open(address, leaseToken);
      }
    }
    for (String address : new ArrayList<>(channels.keySet())) {
      boolean used;
      synchronized (lock) {
        used = streams.containsKey(address);
      }
      if (!used && !wanted.contains(address)) {
        channels.remove(address).shutdown();
      }
    }
  }

  /** Opens a stream to {@code address} unless there is one. Control thread. */
  private void open(String address, long leaseToken) {
    synchronized (lock) {
      if (streams.containsKey(address)) {
        return;
      }
    }
    ManagedChannel ch;
    try {
      ch = channels.computeIfAbsent(address, channelFactory);
    } catch (RuntimeException e) {
      log.warn("queue {}: cannot make a channel to endpoint {}: {}", queue, address, e.toString());
      return;
    }
    EndpointStream s = new EndpointStream(address, this);
    s.stopTime = new EndpointStopTime(reactionNanos, EndpointStopTime.DEFAULT_DRIFT_RATE);
    synchronized (lock) {
      streams.put(address, s);
    }
    JobEndpointGrpc.JobEndpointStub stub = JobEndpointGrpc.newStub(ch);
    (credentials == null ? stub : stub.withCallCredentials(credentials)).dispatch(s);
    s.send(Wire.hello(dispatcherId, queue, leaseToken, heartbeat));
    synchronized (lock) {
      beat(s); // the endpoint's first deadline, before any job
    }
  }

  // ------------------------------------------------------------------ shutdown and views

  /** The streams take no more jobs (close). */
  void drainAll() {
    synchronized (lock) {
      streams.values().forEach(s -> s.draining = true);
      lock.notifyAll();
    }
  }

  /** Waits until no job is out without a result, or until {@code deadlineNanos}. */
  void awaitNoOutstanding(long deadlineNanos) throws InterruptedException {
    synchronized (lock) {
      long left;
      while (outstandingOnStreams() > 0 && (left = deadlineNanos - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
    }
  }

  /** Drops and ends every stream, then shuts the channels (after the control thread stopped). */
  void closeAll() {
    List<EndpointStream> all;
    synchronized (lock) {
      all = new ArrayList<>(streams.values());
    }
    for (EndpointStream s : all) {
      broken(s, "dispatcher closed");
      s.end();
    }
    channels.values().forEach(ManagedChannel::shutdown); // lets the half-closes reach the endpoints
    for (ManagedChannel ch : channels.values()) {
      try {
        if (!ch.awaitTermination(1, TimeUnit.SECONDS)) {
          ch.shutdownNow();
        }
      } catch (InterruptedException e) {
        ch.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    channels.clear();
  }

  /** Jobs out without a result plus claimed ones waiting for a credit. */
  int outstanding() {
    synchronized (lock) {
      return pending.size() + outstandingOnStreams();
    }
  }

  /** The addresses of the ready streams. */
  Set<String> connected() {
    synchronized (lock) {
      Set<String> s = new TreeSet<>();
      streams.forEach((a, st) -> {
        if (st.ready && st.open) {
          s.add(a);
        }
      });
      return s;
    }
  }
}
