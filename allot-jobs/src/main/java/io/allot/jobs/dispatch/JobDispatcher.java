package io.allot.jobs.dispatch;

import io.allot.jobs.Backoff;
import io.allot.jobs.v1.Cancel;
import io.allot.jobs.v1.DispatcherMessage;
import io.allot.jobs.v1.EndpointMessage;
import io.allot.jobs.v1.Hello;
import io.allot.jobs.v1.Job;
import io.allot.jobs.v1.JobEndpointGrpc;
import io.allot.jobs.v1.Result;
import io.allot.jobs.v1.Verdict;
import io.allot.store.Leadership;
import io.allot.store.Lease;
import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator of a queue's jobs for workers that cannot reach the store: claims jobs from a {@link JobQueue}
 * (at the queue's rate limit, which the store enforces inside claim) and pushes them over gRPC to worker endpoints
 * ({@code allot/jobs/v1/jobs.proto}; {@link JobEndpoint} in Java), then completes each job in the store with
 * its lock's fencing token when the endpoint's result comes back on the same stream, and tells the endpoint what the
 * store did.
 *
 * <pre>{@code
 * try (Store store = Stores.open("postgresql://app@db/app");
 *     JobDispatcher d = JobDispatcher.builder(store.jobQueue("emails"),
 *             EndpointSource.members(store.membership("mailers"), store.clock()))
 *         .leadership(store.leadership()).build().start()) {
 *   ...
 * }
 * }</pre>
 *
 * <h2>Leadership</h2>
 * With {@link Builder#leadership}, only the holder of the lease {@code allot-jobs-dispatcher:<queue>} dispatches;
 * other dispatchers stand by, try to acquire it every tick, and take over when it lapses or is released ({@link
 * #close()} releases it). A dispatcher that loses its lease stops claiming at once; the jobs it already sent keep
 * their locks (job locks are fenced by their own tokens, not by the lease) and are completed when their results
 * arrive.
 *
 * <h2>Flow control</h2>
 * Each endpoint declares its capacity (credits) on its stream; the dispatcher never has more jobs without a result
 * on a stream than its capacity, claims no more than the free credits of all streams, and gives each job to the
 * stream with the most free credits.
 *
 * <h2>Faults</h2>
 * <ul>
 *   <li>The dispatcher extends the locks of jobs outstanding on live streams (every tick, those with less than two
 *       thirds of their TTL left). A job whose extension is refused is lost: the endpoint gets a Cancel, and its
 *       result will be rejected.</li>
 *   <li>A stream that breaks, or is silent for three heartbeats, is dropped with its jobs: they are neither failed
 *       nor finished, only no longer extended, and run again (on any endpoint) once their locks expired. Failing them
 *       at once would hand them to another endpoint while the first may still run them (a cut network looks the same
 *       as a dead endpoint); the lock TTL is the first endpoint's time to notice the broken stream and stop.</li>
 *   <li>A job is finished only on its endpoint's result, and only with its own token; a result whose token lost
 *       the lock is refused by the store and reported back as rejected.</li>
 *   <li>A completion that cannot reach the store is retried until the job's lock would have run out; then the
 *       endpoint is told the outcome is unknown.</li>
 * </ul>
 *
 * <p>Threads: one claim loop ({@code allot-dispatch-<queue>}), one control thread (lease, endpoints, lock
 * extension, heartbeats), a few completion threads (store calls for results). State: everything about leadership,
 * streams and jobs is guarded by {@code lock}; each stream's outgoing observer by itself.
 */
public final class JobDispatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobDispatcher.class);

  private final JobQueue queue;
  private final EndpointSource source;
  private final Leadership leadership;
  private final String leaseName;
  private final String dispatcherId;
  private final int batchSize;
  private final Duration lockTtl;
  private final Duration leaseTtl;
  private final Duration heartbeat;
  private final Duration pollInterval;
  private final Duration drainTimeout;
  private final Backoff backoff;
  private final double rateLimit;
  private final DispatchListener listener;
  private final Function<String, ManagedChannel> channelFactory;
  private final long tickMillis;

  private final Object lock = new Object();
  /** The lease while held; guarded by {@code lock}. */
  private Lease lease;
  /** Local monotonic time until which the lease surely holds; guarded by {@code lock}. */
  private long leaseValidUntilNanos;
  /** Streams by endpoint address; guarded by {@code lock}. */
  private final Map<String, Conn> conns = new HashMap<>();
  /** Claimed jobs not sent yet (no free credit at the moment); guarded by {@code lock}. */
  private final ArrayDeque<Attempt> pending = new ArrayDeque<>();
  /** 0 new, 1 running, 2 closed; guarded by {@code lock}. */
  private int state;
  /** Set once close() begins. */
  private volatile boolean stopping;

  /** Channels by address; touched by the control thread and close() only (after the control thread stopped). */
  private final Map<String, ManagedChannel> channels = new java.util.concurrent.ConcurrentHashMap<>();
  private final Thread claimer;
  private final ScheduledExecutorService control;
  private final ExecutorService completions;

  private final Counter finished;
  private final Counter retried;
  private final Counter ignored;
  private final Counter rejected;
  private final Counter unknown;
  private final Counter abandoned;
  private final Counter claimFailures;

  private JobDispatcher(Builder b) {
    this.queue = b.queue;
    this.source = b.source;
    this.leadership = b.leadership;
    this.leaseName = b.leaseName != null ? b.leaseName : "allot-jobs-dispatcher:" + queue.name();
    this.dispatcherId = b.dispatcherId != null ? b.dispatcherId : defaultId();
    this.batchSize = b.batchSize;
    this.lockTtl = b.lockTtl;
    this.leaseTtl = b.leaseTtl;
    this.heartbeat = b.heartbeat;
    this.pollInterval = b.pollInterval;
    this.drainTimeout = b.drainTimeout;
    this.backoff = b.backoff;
    this.rateLimit = b.rateLimit;
    this.listener = b.listener;
    this.channelFactory = b.channelFactory;
    this.tickMillis = Math.max(10, Math.min(heartbeat.toMillis(),
        Math.min(lockTtl.toMillis(), leadership == null ? Long.MAX_VALUE : leaseTtl.toMillis()) / 3));
    String q = queue.name();
    this.claimer = threads("allot-dispatch-" + q + "-").newThread(this::claimLoop);
    this.control = Executors.newSingleThreadScheduledExecutor(threads("allot-dispatch-" + q + "-control-"));
    this.completions = Executors.newFixedThreadPool(b.completionThreads,
        threads("allot-dispatch-" + q + "-complete-"));
    MeterRegistry m = b.meters;
    this.finished = outcome(m, "finished");
    this.retried = outcome(m, "retry_scheduled");
    this.ignored = outcome(m, "ignored");
    this.rejected = outcome(m, "rejected");
    this.unknown = outcome(m, "unknown");
    this.abandoned = Counter.builder("allot.queue.dispatch.abandoned").tag("queue", q)
        .description("jobs dropped with a broken stream or a lost lease, left to run again after their lock expired")
        .register(m);
    this.claimFailures = Counter.builder("allot.queue.dispatch.claim.failures").tag("queue", q)
        .description("claims that failed").register(m);
    Gauge.builder("allot.queue.dispatch.outstanding", this, JobDispatcher::outstanding).tag("queue", q)
        .description("jobs sent to endpoints without a result yet").register(m);
    Gauge.builder("allot.queue.dispatch.leader", this, d -> d.isLeading() ? 1 : 0).tag("queue", q)
        .description("1 while this dispatcher holds the queue's dispatcher lease").register(m);
  }

  private Counter outcome(MeterRegistry m, String outcome) {
    return Counter.builder("allot.queue.dispatch.jobs").tag("queue", queue.name()).tag("outcome", outcome)
        .description("results from endpoints, by what the store did with them").register(m);
  }

  /**
   * A builder for a dispatcher of {@code queue}'s jobs to the endpoints {@code endpoints} names.
   *
   * @param queue     e.g. {@code store.jobQueue("emails")}
   * @param endpoints e.g. {@link EndpointSource#fixed(String...)} or {@link EndpointSource#members}
   */
  public static Builder builder(JobQueue queue, EndpointSource endpoints) {
    return new Builder(queue, endpoints);
  }

  /**
   * Starts: sets the queue's rate limit if one was given, then leads (or stands by) and dispatches.
   *
   * @throws IllegalStateException if started before or closed
   */
  public JobDispatcher start() {
    synchronized (lock) {
      if (state != 0) {
        throw new IllegalStateException("dispatcher " + dispatcherId + " of queue " + queue.name() + " was already "
            + (state == 1 ? "started" : "closed"));
      }
      state = 1;
    }
    if (rateLimit >= 0) {
      queue.limitRate(rateLimit);
    }
    control.scheduleWithFixedDelay(this::tick, 0, tickMillis, TimeUnit.MILLISECONDS);
    claimer.start();
    log.info("queue {}: dispatcher {} started (lock {} ms, {})", queue.name(), dispatcherId, lockTtl.toMillis(),
        leadership == null ? "no leadership" : "lease " + leaseName);
    return this;
  }

  /** This dispatcher's id (the lease holder name and the store's lockedBy of the jobs it claims). */
  public String id() {
    return dispatcherId;
  }

  /** True while this dispatcher may dispatch (holds the lease, or runs without leadership). */
  public boolean isLeading() {
    synchronized (lock) {
      return leadingNow();
    }
  }

  /** Jobs sent to endpoints without a result yet, plus claimed ones waiting for a credit. */
  public int outstanding() {
    synchronized (lock) {
      int n = pending.size();
      for (Conn c : conns.values()) {
        n += c.outstanding.size();
      }
      return n;
    }
  }

  /** The endpoints with a ready stream now (addresses). */
  public Set<String> connectedEndpoints() {
    synchronized (lock) {
      Set<String> s = new java.util.TreeSet<>();
      conns.forEach((a, c) -> {
        if (c.ready && c.open) {
          s.add(a);
        }
      });
      return s;
    }
  }

  // ------------------------------------------------------------------ the claim loop

  private void claimLoop() {
    boolean lingered = false;
    while (!stopping) {
      int want;
      synchronized (lock) {
        int free = leadingNow() ? freeCredits() : 0;
        if (free <= 0) {
          try {
            lock.wait(tickMillis);
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
        want = Math.min(batchSize, free);
        if (want < Math.min(batchSize, totalCredits()) / 2 && outstandingOnStreams() > 0 && !lingered) {
          // results are coming in: wait a moment for more credits rather than claim one job per round trip
          lingered = true;
          try {
            lock.wait(1);
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
        lingered = false;
      }
      List<ClaimedJob> got;
      long t0 = System.nanoTime();
      try {
        got = queue.claim(dispatcherId, want, lockTtl);
      } catch (RuntimeException e) {
        claimFailures.increment();
        if (e instanceof StoreUnavailableException) {
          log.warn("queue {}: claim failed: {}", queue.name(), e.getMessage());
        } else {
          log.error("queue {}: claim failed", queue.name(), e);
        }
        idle(pollInterval);
        continue;
      }
      synchronized (lock) {
        if (!got.isEmpty() && !holdsLease()) {
          // the lease went while we claimed: only the lease holder dispatches; these locks simply expire
          abandoned.increment(got.size());
          log.info("queue {}: lost the lease while claiming; {} jobs left to expire", queue.name(), got.size());
          continue;
        }
        for (ClaimedJob c : got) {
          pending.add(new Attempt(c, t0 + lockTtl.toNanos()));
        }
        drainPending();
      }
      if (got.size() < want) {
        idle(pollInterval); // the queue had no more runnable jobs, or the rate limit no more permits
      }
    }
  }

  private void idle(Duration d) {
    if (!stopping) {
      LockSupport.parkNanos(this, d.toNanos());
    }
  }

  /** True while this dispatcher may claim more: running and holding the lease. Guarded by {@code lock}. */
  private boolean leadingNow() {
    return state == 1 && !stopping && holdsLease();
  }

  /** True while the lease surely holds (or there is no leadership). Guarded by {@code lock}. */
  private boolean holdsLease() {
    return leadership == null ? state != 0 : lease != null && System.nanoTime() - leaseValidUntilNanos < 0;
  }

  /** Guarded by {@code lock}. */
  private int freeCredits() {
    int free = 0;
    for (Conn c : conns.values()) {
      free += c.free();
    }
    return free - pending.size();
  }

  /** The credits of all usable streams. Guarded by {@code lock}. */
  private int totalCredits() {
    int n = 0;
    for (Conn c : conns.values()) {
      if (c.open && c.ready && !c.draining) {
        n += c.capacity;
      }
    }
    return n;
  }

  /** Sends pending jobs to the streams with the most free credits. Guarded by {@code lock}. */
  private void drainPending() {
    while (!pending.isEmpty()) {
      Conn best = null;
      for (Conn c : conns.values()) {
        if (c.free() > 0 && (best == null || c.free() > best.free())) {
          best = c;
        }
      }
      if (best == null) {
        return;
      }
      Attempt a = pending.poll();
      if (a.lockLost) {
        continue;
      }
      a.conn = best;
      best.outstanding.put(a.id(), a);
      ClaimedJob t = a.job;
      best.send(DispatcherMessage.newBuilder().setJob(Job.newBuilder().setKey(t.key()).setToken(t.token())
          .setData(t.data()).setAttempt(t.attempt()).setMaxAttempts(t.maxAttempts())
          .setLockTtlMs(lockTtl.toMillis())).build());
    }
  }

  // ------------------------------------------------------------------ the control thread

  private void tick() {
    try {
      lead();
      endpoints();
      extendLocks();
    } catch (RuntimeException e) {
      log.error("queue {}: dispatcher tick failed", queue.name(), e);
    }
  }

  private void lead() {
    if (leadership == null) {
      return;
    }
    Lease held;
    synchronized (lock) {
      held = lease;
      if (held == null && stopping) {
        return;
      }
    }
    long t0 = System.nanoTime();
    try {
      if (held == null) {
        java.util.Optional<Lease> got = leadership.tryAcquire(leaseName, dispatcherId, leaseTtl);
        if (got.isPresent()) {
          synchronized (lock) {
            if (stopping) {
              leadership.release(got.get());
              return;
            }
            lease = got.get();
            leaseValidUntilNanos = t0 + leaseTtl.toNanos();
            lock.notifyAll();
          }
          log.info("queue {}: dispatcher {} leads (lease token {})", queue.name(), dispatcherId, got.get().token());
        }
      } else if (leadership.renew(held, leaseTtl)) {
        synchronized (lock) {
          if (lease == held) {
            leaseValidUntilNanos = t0 + leaseTtl.toNanos();
          }
        }
      } else {
        stepDown(held, "the lease was lost");
      }
    } catch (StoreUnavailableException e) {
      log.warn("queue {}: lease call failed: {}", queue.name(), e.getMessage());
      synchronized (lock) {
        if (lease != null && System.nanoTime() - leaseValidUntilNanos >= 0) {
          stepDown(lease, "the lease could not be renewed before it ran out");
        }
      }
    }
  }

  private void stepDown(Lease held, String why) {
    synchronized (lock) {
      if (lease != held) {
        return;
      }
      lease = null;
      if (!pending.isEmpty()) {
        abandoned.increment(pending.size());
        pending.clear();
      }
      lock.notifyAll();
    }
    log.warn("queue {}: dispatcher {} stops dispatching: {}", queue.name(), dispatcherId, why);
  }

  private void endpoints() {
    boolean leading;
    synchronized (lock) {
      leading = leadingNow();
    }
    Set<String> wanted;
    if (!leading) {
      wanted = Set.of();
    } else {
      try {
        wanted = source.endpoints();
      } catch (RuntimeException e) {
        log.warn("queue {}: could not read the endpoints: {}", queue.name(), e.toString());
        return;
      }
    }
    List<Conn> toClose = new ArrayList<>();
    List<Conn> silent = new ArrayList<>();
    long now = System.nanoTime();
    long silence = heartbeat.toNanos() * 3;
    synchronized (lock) {
      for (Conn c : new ArrayList<>(conns.values())) {
        if (now - c.lastHeardNanos > silence) {
          silent.add(c);
        } else if (!wanted.contains(c.address) || !leadingNow()) {
          c.draining = true;
          if (c.outstanding.isEmpty()) {
            toClose.add(c);
            conns.remove(c.address, c);
            c.open = false;
          }
        }
      }
      if (leadingNow()) {
        for (String address : wanted) {
          if (!conns.containsKey(address)) {
            open(address);
          }
        }
      }
    }
    for (Conn c : silent) {
      log.warn("queue {}: endpoint {} sent nothing for {} ms (three heartbeats): dropping its stream", queue.name(),
          c.address, silence / 1_000_000);
      broken(c, "silent for more than " + silence / 1_000_000 + " ms");
      c.cancel("silent");
    }
    for (Conn c : toClose) {
      c.end();
    }
    for (String address : new ArrayList<>(channels.keySet())) {
      boolean used;
      synchronized (lock) {
        used = conns.containsKey(address);
      }
      if (!used && !wanted.contains(address)) {
        ManagedChannel ch = channels.remove(address);
        if (ch != null) {
          ch.shutdown();
        }
      }
    }
  }

  /** Opens a stream to {@code address}. Guarded by {@code lock}. */
  private void open(String address) {
    ManagedChannel ch;
    try {
      ch = channels.computeIfAbsent(address, channelFactory);
    } catch (RuntimeException e) {
      log.warn("queue {}: cannot make a channel to endpoint {}: {}", queue.name(), address, e.toString());
      return;
    }
    Conn c = new Conn(address);
    conns.put(address, c);
    JobEndpointGrpc.newStub(ch).dispatch(c);
    c.send(DispatcherMessage.newBuilder().setHello(Hello.newBuilder().setDispatcher(dispatcherId)
        .setQueue(queue.name()).setLeaseToken(lease == null ? 0 : lease.token())
        .setHeartbeatMs(heartbeat.toMillis())).build());
  }

  /** Drops a stream and its jobs (left to expire). */
  private void broken(Conn c, String why) {
    int dropped;
    synchronized (lock) {
      if (!c.open) {
        return;
      }
      c.open = false;
      conns.remove(c.address, c);
      dropped = c.outstanding.size();
      c.outstanding.values().forEach(a -> a.conn = null);
      c.outstanding.clear();
      lock.notifyAll();
    }
    if (dropped > 0) {
      abandoned.increment(dropped);
      log.warn("queue {}: stream to endpoint {} broke ({}); its {} jobs run again after their locks expire",
          queue.name(), c.address, why, dropped);
    } else {
      log.debug("queue {}: stream to endpoint {} ended ({})", queue.name(), c.address, why);
    }
  }

  private void extendLocks() {
    List<Attempt> due = new ArrayList<>();
    long now = System.nanoTime();
    long threshold = lockTtl.toNanos() * 2 / 3;
    synchronized (lock) {
      for (Attempt a : pending) {
        if (!a.lockLost && a.lockedUntilNanos - now < threshold) {
          due.add(a);
        }
      }
      for (Conn c : conns.values()) {
        for (Attempt a : c.outstanding.values()) {
          if (!a.lockLost && a.lockedUntilNanos - now < threshold) {
            due.add(a);
          }
        }
      }
    }
    for (Attempt a : due) {
      long t0 = System.nanoTime();
      try {
        if (queue.extend(a.job.key(), a.job.token(), lockTtl)) {
          synchronized (lock) {
            a.lockedUntilNanos = t0 + lockTtl.toNanos();
          }
        } else {
          lost(a, "the lock was lost (it expired, or the job was retried or ignored by hand)");
        }
      } catch (StoreUnavailableException e) {
        boolean expired;
        synchronized (lock) {
          expired = System.nanoTime() - a.lockedUntilNanos >= 0;
        }
        if (expired) {
          lost(a, "the lock could not be extended before it ran out");
        }
      }
    }
  }

  private void lost(Attempt a, String why) {
    Conn c;
    synchronized (lock) {
      a.lockLost = true;
      pending.remove(a);
      c = a.conn;
    }
    log.info("queue {}: {} (token {}): {}", queue.name(), a.job.key(), a.job.token(), why);
    if (c != null) {
      c.send(DispatcherMessage.newBuilder().setCancel(Cancel.newBuilder().setKey(a.job.key())
          .setToken(a.job.token()).setReason(why)).build());
    }
  }

  // ------------------------------------------------------------------ results

  private void result(Conn c, Result r) {
    Attempt a;
    synchronized (lock) {
      a = c.outstanding.remove(new AttemptId(r.getKey(), r.getToken()));
      if (a != null) {
        a.conn = null;
        drainPending();
        lock.notifyAll();
      }
    }
    if (a == null) {
      // not an attempt of this stream (a duplicate, or a bad endpoint): nothing to complete
      rejected.increment();
      c.verdict(r.getKey(), r.getToken(), io.allot.jobs.v1.JobOutcome.REJECTED);
      return;
    }
    try {
      completions.execute(() -> complete(c, a, r));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      complete(c, a, r); // closing: complete on this thread rather than drop a result
    }
  }

  private void complete(Conn c, Attempt a, Result r) {
    ClaimedJob t = a.job;
    String error = r.getError().isEmpty() ? null : r.getError();
    Duration wait = r.getRetryAfterMs() > 0 ? Duration.ofMillis(r.getRetryAfterMs()) : backoff.after(t.attempt());
    JobOutcome outcome = null;
    long deadline;
    synchronized (lock) {
      deadline = a.lockedUntilNanos;
    }
    while (true) {
      try {
        outcome = error == null ? queue.finish(t.key(), t.token()) : queue.fail(t.key(), t.token(), error, wait);
        break;
      } catch (StoreUnavailableException e) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          log.warn("queue {}: could not complete {} before its lock ran out: {}", queue.name(), t.key(),
              e.getMessage());
          break;
        }
        LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      } catch (RuntimeException e) {
        log.error("queue {}: completing {} failed", queue.name(), t.key(), e);
        break;
      }
    }
    io.allot.jobs.v1.JobOutcome wire;
    if (outcome == null) {
      unknown.increment();
      wire = io.allot.jobs.v1.JobOutcome.OUTCOME_UNSPECIFIED;
    } else {
      switch (outcome) {
        case FINISHED -> { finished.increment(); wire = io.allot.jobs.v1.JobOutcome.FINISHED; }
        case RETRY_SCHEDULED -> { retried.increment(); wire = io.allot.jobs.v1.JobOutcome.RETRY_SCHEDULED; }
        case IGNORED -> { ignored.increment(); wire = io.allot.jobs.v1.JobOutcome.IGNORED; }
        default -> { rejected.increment(); wire = io.allot.jobs.v1.JobOutcome.REJECTED; }
      }
    }
    try {
      listener.completed(t, c.endpointId(), outcome, error);
    } catch (RuntimeException e) {
      log.warn("queue {}: dispatch listener failed", queue.name(), e);
    }
    c.verdict(t.key(), t.token(), wire);
  }

  // ------------------------------------------------------------------ shutdown

  /**
   * Stops claiming, releases the lease (a standby takes over at once), waits up to the drain timeout for the results
   * of jobs already sent (extending their locks meanwhile), then ends the streams; jobs still without a result run
   * again after their locks expire. Idempotent.
   */
  @Override
  public void close() {
    Lease held;
    boolean wasRunning;
    synchronized (lock) {
      if (stopping) {
        return;
      }
      wasRunning = state == 1;
      stopping = true; // the claim loop ends after the claim in flight, whose jobs are still sent out
      lock.notifyAll();
    }
    LockSupport.unpark(claimer);
    try {
      if (wasRunning) {
        claimer.join();
      }
      synchronized (lock) {
        state = 2;
        held = lease;
        lease = null;
        if (!pending.isEmpty()) {
          abandoned.increment(pending.size());
          pending.clear();
        }
        conns.values().forEach(c -> c.draining = true);
      }
      if (held != null) {
        try {
          leadership.release(held);
        } catch (RuntimeException e) {
          log.warn("queue {}: could not release the lease (it lapses by itself): {}", queue.name(), e.toString());
        }
      }
      long end = System.nanoTime() + drainTimeout.toNanos();
      synchronized (lock) {
        while (outstandingOnStreams() > 0 && end - System.nanoTime() > 0) {
          lock.wait(Math.max(1, Math.min(tickMillis, (end - System.nanoTime()) / 1_000_000)));
        }
      }
      control.shutdownNow();
      control.awaitTermination(drainTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      completions.shutdown();
      completions.awaitTermination(drainTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Conn> all;
    synchronized (lock) {
      all = new ArrayList<>(conns.values());
    }
    for (Conn c : all) {
      broken(c, "dispatcher closed");
      c.end();
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
    completions.shutdownNow();
    log.info("queue {}: dispatcher {} closed", queue.name(), dispatcherId);
  }

  /** Guarded by {@code lock}. */
  private int outstandingOnStreams() {
    int n = 0;
    for (Conn c : conns.values()) {
      n += c.outstanding.size();
    }
    return n;
  }

  @Override
  public String toString() {
    return "JobDispatcher[" + queue.name() + ", " + dispatcherId + "]";
  }

  // ------------------------------------------------------------------ state

  private record AttemptId(String key, long token) {}

  /** A claimed attempt; its mutable fields are guarded by the dispatcher's {@code lock}. */
  private static final class Attempt {
    final ClaimedJob job;
    long lockedUntilNanos;
    boolean lockLost;
    Conn conn;

    Attempt(ClaimedJob job, long lockedUntilNanos) {
      this.job = job;
      this.lockedUntilNanos = lockedUntilNanos;
    }

    AttemptId id() {
      return new AttemptId(job.key(), job.token());
    }
  }

  /** One stream to one endpoint. Fields other than {@code out} and the volatiles are guarded by {@code lock}. */
  private final class Conn implements ClientResponseObserver<DispatcherMessage, EndpointMessage> {
    final String address;
    final Map<AttemptId, Attempt> outstanding = new HashMap<>();
    int capacity;
    boolean ready;
    boolean open = true;
    boolean draining;
    /** Guarded by {@code this}: the outgoing half (gRPC observers are not thread-safe). */
    private ClientCallStreamObserver<DispatcherMessage> out;
    /** Guarded by {@code this}. */
    private boolean ended;
    volatile String endpointId;
    volatile long lastHeardNanos = System.nanoTime();

    Conn(String address) {
      this.address = address;
      this.endpointId = address;
    }

    /** Guarded by {@code lock}. */
    int free() {
      return open && ready && !draining ? Math.max(0, capacity - outstanding.size()) : 0;
    }

    String endpointId() {
      return endpointId;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<DispatcherMessage> requestStream) {
      synchronized (this) {
        out = requestStream;
      }
    }

    void send(DispatcherMessage m) {
      synchronized (this) {
        if (ended || out == null) {
          return;
        }
        try {
          out.onNext(m);
        } catch (RuntimeException e) {
          log.debug("queue {}: send to {} failed: {}", queue.name(), address, e.toString());
        }
      }
    }

    void verdict(String key, long token, io.allot.jobs.v1.JobOutcome o) {
      send(DispatcherMessage.newBuilder().setVerdict(Verdict.newBuilder().setKey(key).setToken(token)
          .setOutcome(o)).build());
    }

    /** Half-closes the stream (the endpoint then ends its side). */
    void end() {
      synchronized (this) {
        if (ended || out == null) {
          return;
        }
        ended = true;
        try {
          out.onCompleted();
        } catch (RuntimeException e) {
          log.debug("queue {}: ending the stream to {} failed: {}", queue.name(), address, e.toString());
        }
      }
    }

    void cancel(String why) {
      synchronized (this) {
        if (ended || out == null) {
          return;
        }
        ended = true;
        out.cancel(why, null);
      }
    }

    @Override
    public void onNext(EndpointMessage m) {
      lastHeardNanos = System.nanoTime();
      switch (m.getKindCase()) {
        case READY -> {
          synchronized (lock) {
            if (!m.getReady().getEndpoint().isEmpty()) {
              endpointId = m.getReady().getEndpoint();
            }
            if (!ready || capacity != m.getReady().getCapacity()) {
              log.info("queue {}: endpoint {} ({}) ready, capacity {}", queue.name(), address, endpointId,
                  m.getReady().getCapacity());
            }
            capacity = Math.max(0, m.getReady().getCapacity());
            ready = true;
            drainPending();
            lock.notifyAll();
          }
        }
        case RESULT -> result(this, m.getResult());
        default -> log.debug("queue {}: unknown message from {} ignored", queue.name(), address);
      }
    }

    @Override
    public void onError(Throwable t) {
      broken(this, t.toString());
      synchronized (this) {
        ended = true;
      }
    }

    @Override
    public void onCompleted() {
      broken(this, "the endpoint ended it");
      end();
    }
  }

  private static String defaultId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    return "dispatcher:" + host + ":" + ManagementFactory.getRuntimeMXBean().getPid() + ":"
        + UUID.randomUUID().toString().substring(0, 4);
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Settings of a {@link JobDispatcher}; each setter checks its value and names it when bad. */
  public static final class Builder {
    private final JobQueue queue;
    private final EndpointSource source;
    private Leadership leadership;
    private String leaseName;
    private String dispatcherId;
    private int batchSize = 100;
    private int completionThreads = 16;
    private Duration lockTtl = Duration.ofSeconds(30);
    private Duration leaseTtl = Duration.ofSeconds(10);
    private Duration heartbeat = Duration.ofSeconds(1);
    private Duration pollInterval = Duration.ofMillis(500);
    private Duration drainTimeout = Duration.ofSeconds(30);
    private Backoff backoff = Backoff.DEFAULT;
    private double rateLimit = -1;
    private DispatchListener listener = (t, e, o, err) -> { };
    private MeterRegistry meters = new CompositeMeterRegistry();
    private Function<String, ManagedChannel> channelFactory =
        target -> Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();

    private Builder(JobQueue queue, EndpointSource source) {
      this.queue = Objects.requireNonNull(queue, "queue");
      this.source = Objects.requireNonNull(source, "endpoints");
    }

    /**
     * Elects one dispatcher per queue with leases of this store role: only the holder dispatches, others stand by.
     * Default: none (this dispatcher always dispatches; run only one).
     */
    public Builder leadership(Leadership leadership) {
      this.leadership = Objects.requireNonNull(leadership, "leadership");
      return this;
    }

    /** The lease name; default {@code allot-jobs-dispatcher:<queue>}. */
    public Builder leaseName(String leaseName) {
      if (leaseName == null || leaseName.isEmpty()) {
        throw new IllegalArgumentException("leaseName must be non-empty but was '" + leaseName + "'");
      }
      this.leaseName = leaseName;
      return this;
    }

    /** How long the lease lasts unless renewed (renewed every third of it); at least 30 ms, default 10 s. */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = atLeast("leaseTtl", leaseTtl, 30);
      return this;
    }

    /** The lease holder name and lockedBy of claimed jobs; default {@code dispatcher:host:pid:random}. */
    public Builder dispatcherId(String dispatcherId) {
      this.dispatcherId = JobLimits.checkWorker(dispatcherId);
      return this;
    }

    /** Most jobs claimed in one store call (1 to 10,000); default 100 (never more than the free credits). */
    public Builder batchSize(int batchSize) {
      this.batchSize = JobLimits.checkBatch("batchSize", batchSize);
      return this;
    }

    /** Threads making the store calls for results (one finish or fail per result; 1 to 256); default 16. */
    public Builder completionThreads(int completionThreads) {
      if (completionThreads < 1 || completionThreads > 256) {
        throw new IllegalArgumentException("completionThreads must be in [1, 256] but was " + completionThreads);
      }
      this.completionThreads = completionThreads;
      return this;
    }

    /** How long a claimed job's lock lasts; extended while its stream lives. At least 30 ms, default 30 s. */
    public Builder lockTtl(Duration lockTtl) {
      this.lockTtl = atLeast("lockTtl", lockTtl, 30);
      return this;
    }

    /**
     * How often endpoints must send something (told in the Hello); a stream silent for three times as long is taken
     * for dead. At least 10 ms, default 1 s.
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = atLeast("heartbeat", heartbeat, 10);
      return this;
    }

    /** How long to wait before claiming again when the queue gave fewer jobs than asked. Default 500 ms. */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = atLeast("pollInterval", pollInterval, 1);
      return this;
    }

    /** How long {@link #close()} waits for results of jobs already sent. Default 30 s. */
    public Builder drainTimeout(Duration drainTimeout) {
      Objects.requireNonNull(drainTimeout, "drainTimeout");
      if (drainTimeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must be >= 0 but was " + drainTimeout);
      }
      this.drainTimeout = drainTimeout;
      return this;
    }

    /** The wait before a failed job's next attempt, unless the endpoint asked for one. Default {@link Backoff#DEFAULT}. */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /** Sets the queue's rate limit at start (kept in the store, shared by all claimers; 0 removes it). */
    public Builder rateLimit(double jobsPerSecond) {
      this.rateLimit = JobLimits.checkRate(jobsPerSecond);
      return this;
    }

    /** Told of every result after the store answered. */
    public Builder listener(DispatchListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Where the meters go ({@code allot.queue.dispatch.*}). Default: nowhere. */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = Objects.requireNonNull(meters, "meters");
      return this;
    }

    /**
     * Makes the channel to an endpoint address (TLS, keepalive, interceptors). Default: plaintext
     * {@code Grpc.newChannelBuilder(address, InsecureChannelCredentials.create())}.
     */
    public Builder channelFactory(Function<String, ManagedChannel> channelFactory) {
      this.channelFactory = Objects.requireNonNull(channelFactory, "channelFactory");
      return this;
    }

    /** The dispatcher, not started yet ({@link JobDispatcher#start()}). */
    public JobDispatcher build() {
      return new JobDispatcher(this);
    }

    private static Duration atLeast(String name, Duration d, long minMillis) {
      Objects.requireNonNull(d, name);
      if (d.toMillis() < minMillis) {
        throw new IllegalArgumentException(name + " must be at least " + minMillis + " ms but was " + d);
      }
      return d;
    }
  }
}
