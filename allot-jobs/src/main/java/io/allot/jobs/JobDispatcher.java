package io.allot.jobs;

import io.allot.store.Leadership;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobQueue;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.CallCredentials;
import io.grpc.ManagedChannel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * With {@link Builder#leadership}, only the holder of the lease {@code allot-jobs-dispatcher:<queue>} dispatches
 * ({@link io.allot.store.LeaderLease}: the lease is trusted until the last successful renewal's send time + ttl -
 * margin, and a refused renewal steps down at once); other dispatchers stand by, try to acquire it every tick, and
 * take over when it lapses or is released ({@link #close()} releases it). A dispatcher whose lease is no longer
 * trusted stops claiming at once; the jobs it already sent keep their locks (job locks are fenced by their own
 * tokens, not by the lease) and are completed when their results arrive.
 *
 * <h2>Flow control</h2>
 * Each endpoint declares its capacity (credits) on its stream; the dispatcher never has more jobs without a result
 * on a stream than its capacity, claims no more than the free credits of all streams, and gives each job to the
 * stream with the most free credits.
 *
 * <h2>Faults</h2>
 * <ul>
 *   <li>The dispatcher extends the locks of jobs waiting for a credit or outstanding on live streams (those with
 *       less than two thirds of their TTL left, every tick). A job whose extension is refused is lost: the endpoint
 *       gets a Cancel, and its result will be rejected.</li>
 *   <li>Every tick (at most a quarter of the lock TTL and of the endpoint deadline), right after extending locks,
 *       each stream gets a Heartbeat with its endpoint's deadline: {@link Builder#endpointDeadline} (1 s), or less
 *       when a lock of the stream's jobs is surely kept for less (that time less a fifth of the lock TTL). An endpoint
 *       that hears none by then stops the stream's handlers, so a cut that closes nothing (a proxy that stops
 *       forwarding) cannot run a job twice at once ({@code jobs.proto}, "Deadline").</li>
 *   <li>A stream that breaks, or is silent for three heartbeats, is dropped with its jobs. Their locks are still kept
 *       until the endpoint has surely stopped them: the last deadline sent on the stream, plus the endpoint's
 *       reaction ({@link Builder#endpointReaction}) and 1 % for clock drift ({@code EndpointStopTime}); then each is
 *       given back as a failure with its own token and no wait, so it runs again on another endpoint within about
 *       1.5 s with the defaults, and a late result of the old attempt is refused by the store. Handing them over
 *       earlier could run a job twice at once (a cut network looks the same as a dead endpoint).</li>
 *   <li>A job is finished only on its endpoint's result, and only with its own token; a result whose token lost
 *       the lock is refused by the store and reported back as rejected.</li>
 *   <li>Results are reported like a {@link JobWorker}'s ({@link AttemptReporter}): successes finished in batches,
 *       a report that cannot reach the store retried until the job's lock would have run out (then the outcome is
 *       unknown, and the endpoint is told so), and a retried report refused after an earlier try was applied
 *       recognised from the stored job.</li>
 * </ul>
 *
 * <p>Inside, each duty is a package-private part (allot-jobs' README has the table): {@link LeaseKeeper},
 * {@link EndpointStreams} with an {@link EndpointStream} per endpoint, {@link ClaimLoop}, {@link LockKeeper},
 * {@link Completer} and the {@link AttemptReporter} shared with the worker. This class wires them. Threads: the claim
 * loop ({@code allot-dispatch-<queue>-1}), one control thread (lease, endpoints, lock extension), a few completion
 * threads (failures' store calls), the reporter's two. Guards: {@code state} by {@code this}; the parts' own.
 */
public final class JobDispatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobDispatcher.class);

  private final JobQueue queue;
  private final EndpointSource source;
  private final String dispatcherId;
  private final Duration lockTtl;
  private final Duration drainTimeout;
  private final double rateLimit;
  private final long tickMillis;

  private final LeaseKeeper lease;
  private final LockKeeper locks;
  private final AttemptReporter reporter;
  private final EndpointStreams streams;
  private final DroppedJobs dropped;
  private final ClaimLoop claims;
  private final ScheduledExecutorService control;
  private final ExecutorService completions;
  /** 0 new, 1 running, 2 closing or closed; guarded by {@code this}. */
  private int state;
  /** Set once close() begins. */
  private volatile boolean stopping;

  private JobDispatcher(Builder b) {
    this.queue = b.queue;
    this.source = b.source;
    this.dispatcherId = b.dispatcherId != null ? b.dispatcherId : "dispatcher:" + Threads.defaultId();
    this.lockTtl = b.lockTtl;
    this.drainTimeout = b.drainTimeout;
    this.rateLimit = b.rateLimit;
    // a quarter of the lock TTL: each tick's Heartbeat tells the endpoints their deadline (EndpointStreams.heartbeat)
    // and a quarter of the endpoint deadline, so an endpoint hears several Heartbeats before its deadline passes
    this.tickMillis = Math.max(10, Math.min(Math.min(Math.min(b.heartbeat.toMillis(), lockTtl.toMillis() / 4),
        b.endpointDeadline.toMillis() / 4), b.leadership == null ? Long.MAX_VALUE : b.leaseTtl.toMillis() / 3));
    String q = queue.name();
    MeterRegistry m = b.meters;
    Counter abandoned = Counter.builder("allot.jobs.dispatch.abandoned").tag("queue", q)
        .description("jobs dropped with a broken stream or a lost lease, left to run again after their lock expired")
        .register(m);
    Counter claimFailures = Counter.builder("allot.jobs.dispatch.claim.failures").tag("queue", q)
        .description("claims that failed").register(m);
    this.control = Executors.newSingleThreadScheduledExecutor(Threads.named("allot-dispatch-" + q + "-control-"));
    this.completions = Executors.newFixedThreadPool(b.completionThreads,
        Threads.named("allot-dispatch-" + q + "-complete-"));
    this.locks = new LockKeeper(queue, lockTtl, System::nanoTime);
    this.reporter = new AttemptReporter(queue, locks, b.backoff, b.batchSize, b.reported(),
        AttemptReporter.counters(m, "allot.jobs.dispatch.attempts", q,
            "results from endpoints, by what the store did with them"), null);
    Counter released = Counter.builder("allot.jobs.dispatch.released").tag("queue", q)
        .description("jobs of broken or silent streams given back once their endpoint had surely stopped them")
        .register(m);
    this.dropped = new DroppedJobs(q, locks, reporter, completions, control, this::wakeClaims, released, abandoned);
    this.streams = new EndpointStreams(q, dispatcherId, lockTtl, b.heartbeat, b.endpointDeadline, b.endpointReaction,
        b.channelFactory, b.credentials, locks, new Completer(reporter, completions), dropped, abandoned,
        new DispatchRefusals(q, dispatcherId, Counter.builder("allot.jobs.dispatch.refused").tag("queue", q)
            .description("dispatch streams an endpoint refused (this dispatcher lacks its token)").register(m),
            b.events));
    String leaseName = b.leaseName != null ? b.leaseName : "allot-jobs-dispatcher:" + q;
    this.lease = new LeaseKeeper(b.leadership, leaseName, dispatcherId, b.leaseTtl, () -> {
      streams.dropPending();
      log.warn("queue {}: dispatcher {} stops dispatching: its lease is no longer trusted", q, dispatcherId);
    });
    io.micrometer.core.instrument.Timer waited = io.micrometer.core.instrument.Timer.builder("allot.jobs.dispatch.wait")
        .tag("queue", q).description("how long a claimed job had waited in the queue, runnable, before the "
            + "dispatcher's claim (store time)").publishPercentiles(0.5, 0.99).register(m);
    Counter rateLimited = Counter.builder("allot.jobs.dispatch.rate.limited").tag("queue", q)
        .description("the dispatcher's claims the queue's rate limit cut short (a runnable job left for want of a "
            + "permit); it then waits a poll interval").register(m);
    this.claims = new ClaimLoop(queue, dispatcherId, b.batchSize, b.pollInterval, tickMillis, lease, streams, locks,
        claimFailures, rateLimited, abandoned, waited);
    Gauge.builder("allot.jobs.dispatch.outstanding", this, JobDispatcher::outstanding).tag("queue", q)
        .description("jobs sent to endpoints without a result yet").register(m);
    Gauge.builder("allot.jobs.dispatch.leader", this, d -> d.isLeading() ? 1 : 0).tag("queue", q)
        .description("1 while this dispatcher holds the queue's dispatcher lease").register(m);
    io.micrometer.core.instrument.FunctionCounter.builder("allot.jobs.dispatch.lock.extensions", locks,
        LockKeeper::extensions).tag("queue", q).description("job locks extended while an endpoint ran the job")
        .register(m);
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
    synchronized (this) {
      if (state != 0) {
        throw new IllegalStateException("dispatcher " + dispatcherId + " of queue " + queue.name() + " was already "
            + (state == 1 ? "started" : "closed"));
      }
      state = 1;
    }
    if (rateLimit >= 0) {
      queue.limitRate(rateLimit);
    }
    lease.start();
    control.scheduleWithFixedDelay(this::tick, 0, tickMillis, TimeUnit.MILLISECONDS);
    claims.start();
    log.info("queue {}: dispatcher {} started (lock {} ms, {})", queue.name(), dispatcherId, lockTtl.toMillis(),
        lease);
    return this;
  }

  /** This dispatcher's id (the lease holder name and the store's lockedBy of the jobs it claims). */
  public String id() {
    return dispatcherId;
  }

  /** True while this dispatcher may dispatch (holds a trusted lease, or runs without leadership). */
  public boolean isLeading() {
    return !stopping && lease.leading();
  }

  /** Jobs sent to endpoints without a result yet, plus claimed ones waiting for a credit. */
  public int outstanding() {
    return streams.outstanding();
  }

  /** The endpoints with a ready stream now (addresses). */
  public Set<String> connectedEndpoints() {
    return streams.connected();
  }

  /** Jobs were given back: the claim loop claims again now. */
  private void wakeClaims() {
    claims.wake();
  }

  /** The control thread's tick: the lease, the endpoints, the locks. */
  private void tick() {
    try {
      lease.tick();
      boolean leading = isLeading();
      Set<String> wanted;
      try {
        wanted = leading ? source.endpoints() : Set.of();
      } catch (RuntimeException e) {
        log.warn("queue {}: could not read the endpoints: {}", queue.name(), e.toString());
        wanted = null;
      }
      streams.reconcile(wanted, leading, lease.token());
      locks.pass(streams::lost);
      dropped.releaseDue(System.nanoTime()); // a backstop: each stop time has a pass of its own
      streams.heartbeat(); // after the pass: the deadlines count the extensions just made
    } catch (RuntimeException e) {
      log.error("queue {}: dispatcher tick failed", queue.name(), e);
    }
  }

  /**
   * Stops claiming, releases the lease (a standby takes over at once), waits up to the drain timeout for the results
   * of jobs already sent (extending their locks meanwhile) and for their reports, then ends the streams; jobs still
   * without a result run again after their locks expire. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (state == 2) {
        return;
      }
      state = 2;
      stopping = true;
    }
    try {
      claims.stop(); // the claim in flight ends, its jobs are still sent out
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    lease.close();
    streams.dropPending();
    streams.drainAll();
    try {
      long end = System.nanoTime() + drainTimeout.toNanos();
      streams.awaitNoOutstanding(end);
      reporter.awaitIdle(end);
      control.shutdownNow();
      control.awaitTermination(drainTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      completions.shutdown();
      completions.awaitTermination(drainTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      control.shutdownNow();
    }
    streams.closeAll();
    reporter.close();
    completions.shutdownNow();
    log.info("queue {}: dispatcher {} closed", queue.name(), dispatcherId);
  }

  @Override
  public String toString() {
    return "JobDispatcher[" + queue.name() + ", " + dispatcherId + "]";
  }

  /** Settings of a {@link JobDispatcher}; each setter checks its value and names it when bad. */
  public static final class Builder extends ClaimSettings<Builder> {
    private final JobQueue queue;
    private final EndpointSource source;
    private Leadership leadership;
    private String leaseName;
    private String dispatcherId;
    private int batchSize = 100;
    private int completionThreads = 16;
    private Duration leaseTtl = Duration.ofSeconds(10);
    private Duration heartbeat = Duration.ofMillis(250);
    private Duration endpointDeadline = Duration.ofSeconds(1);
    private Duration endpointReaction = Duration.ofMillis(250);
    private Duration pollInterval = Duration.ofMillis(500);
    private Function<String, ManagedChannel> channelFactory =
        target -> Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
    private CallCredentials credentials;

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

    /**
     * How long the lease lasts unless renewed (renewed every third of it, trusted until a tenth of it before its end);
     * 30 ms to 1 day, default 10 s.
     */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = timeout("leaseTtl", leaseTtl, 30);
      return this;
    }

    /** The lease holder name and lockedBy of claimed jobs; default {@code dispatcher:host:pid:random}. */
    public Builder dispatcherId(String dispatcherId) {
      this.dispatcherId = JobLimits.checkWorker(dispatcherId);
      return this;
    }

    /**
     * Most jobs claimed in one store call, and finished in one {@code finishAll} (1 to 10,000); default 100 (never
     * more than the free credits).
     */
    public Builder batchSize(int batchSize) {
      this.batchSize = JobLimits.checkBatch("batchSize", batchSize);
      return this;
    }

    /**
     * Threads making the store calls for failed results (one {@code fail} each; successes are finished in batches);
     * 1 to 256, default 16.
     */
    public Builder completionThreads(int completionThreads) {
      if (completionThreads < 1 || completionThreads > 256) {
        throw new IllegalArgumentException("completionThreads must be in [1, 256] but was " + completionThreads);
      }
      this.completionThreads = completionThreads;
      return this;
    }

    /**
     * How often endpoints must send something (told in the Hello); a stream silent for three times as long is taken
     * for dead. The dispatcher's own Heartbeats go at least this often too (and at least every quarter of the lock
     * TTL, and at least every quarter of the {@link #endpointDeadline}). 10 ms to 1 day, default 250 ms.
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = timeout("heartbeat", heartbeat, 10);
      return this;
    }

    /**
     * The longest deadline an endpoint is given ({@code stop_after_ms}): an endpoint that hears no Heartbeat for this
     * long stops its handlers, and the jobs of a dead or silent endpoint run elsewhere about this long (plus the
     * {@link #endpointReaction}) after its last Heartbeat, however long the lock TTL (a lock kept for less gives a
     * shorter deadline). Heartbeats go at least every quarter of it. 40 ms to 1 day, default 1 s.
     */
    public Builder endpointDeadline(Duration endpointDeadline) {
      this.endpointDeadline = timeout("endpointDeadline", endpointDeadline, 40);
      return this;
    }

    /**
     * How long past its deadline an endpoint may take to have stopped its handlers: one message's transit, its
     * timer's lateness and the handlers' response to the interrupt. The jobs of a dropped stream are given back to the
     * queue only after the last deadline sent on it plus this (and 1 % for clock drift). 0 to 1 minute, default 250 ms.
     */
    public Builder endpointReaction(Duration endpointReaction) {
      this.endpointReaction = io.allot.store.Durations.check("endpointReaction", endpointReaction, Duration.ZERO,
          Duration.ofMinutes(1));
      return this;
    }

    /**
     * How long to wait before claiming again when the queue gave fewer jobs than asked: 1 ms to 1 day, default 500 ms.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = timeout("pollInterval", pollInterval, 1);
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

    /**
     * Dials the endpoints with {@code credentials}, e.g. TLS ({@code TlsChannelCredentials}, or allot-tls's
     * {@code PemTls.client(...).channelCredentials()}, which follows rotated files): sets the
     * {@link #channelFactory} to {@code Grpc.newChannelBuilder(address, credentials).build()}.
     */
    public Builder channelCredentials(io.grpc.ChannelCredentials credentials) {
      Objects.requireNonNull(credentials, "credentials");
      this.channelFactory = target -> Grpc.newChannelBuilder(target, credentials).build();
      return this;
    }

    /**
     * Credentials sent on every dispatch stream, e.g. the bearer token an endpoint requires
     * ({@code io.allot.server.auth.GrpcAuth.bearer(token)}: {@code authorization: Bearer <token>}). Default: none.
     */
    public Builder callCredentials(CallCredentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    @Override
    Builder self() {
      return this;
    }

    /** The dispatcher, not started yet ({@link JobDispatcher#start()}). */
    public JobDispatcher build() {
      return new JobDispatcher(this);
    }
  }
}
