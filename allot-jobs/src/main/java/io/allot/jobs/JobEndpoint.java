package io.allot.jobs;

import io.allot.jobs.v1.DispatcherMessage;
import io.allot.jobs.v1.EndpointMessage;
import io.allot.jobs.v1.JobEndpointGrpc;
import io.allot.store.jobs.ClaimedJob;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of the dispatch protocol ({@code allot/jobs/v1/jobs.proto}) in Java: a gRPC service an
 * application adds to its own {@link io.grpc.Server}; a {@link JobDispatcher} connects to it and pushes jobs, which
 * run on a {@link JobHandler} here (the same handler a {@link JobWorker} runs), at most {@code capacity} at once, and
 * the results go back on the same stream. The endpoint never reaches the store.
 *
 * <pre>{@code
 * JobEndpoint endpoint = JobEndpoint.builder(job -> mailer.send(job.data())).capacity(8).build();
 * Server server = Grpc.newServerBuilderForPort(7070, InsecureServerCredentials.create())
 *     .addService(endpoint).build().start();
 * }</pre>
 *
 * <p>Each stream is granted {@code capacity} credits; the handler threads ({@code capacity} of them) are shared by
 * all streams, so while two dispatchers talk to the endpoint at once (a deposed leader draining, a new one starting)
 * jobs may wait here for a thread; their locks are extended by the dispatcher meanwhile. When the dispatcher cancels
 * a job (its lock is lost) or its stream ends, the job's {@link JobContext#stopRequested()} turns true and its
 * handler thread is interrupted: its result could not count, and the job runs again after its lock expires. The same
 * happens to every job of a stream whose deadline passes: each dispatcher Heartbeat (and Job) says how long its locks
 * are surely kept, less a margin, and a stream that hears none by then is closed without results
 * ({@code jobs.proto}, "Deadline"), so a network cut that closes nothing cannot run a job twice at once. A
 * failure is reported as the store keeps it ({@code ExceptionClass: message}), with a {@link JobHandler.RetryAfter}'s
 * wait as {@code retry_after_ms}.
 *
 * <p>State: the streams' maps are concurrent; each stream's response observer is guarded by itself (gRPC observers
 * are not thread-safe); {@code closed} is volatile.
 */
public final class JobEndpoint extends JobEndpointGrpc.JobEndpointImplBase implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobEndpoint.class);

  private final JobHandler handler;
  private final AttemptListener listener;
  private final String endpointId;
  /** For logs. */
  private final String name;
  private final int capacity;
  private final ExecutorService workers;
  private final ScheduledExecutorService heartbeats;
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger streams = new AtomicInteger();
  /** The open streams (concurrent set). */
  private final Set<Stream> live = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private JobEndpoint(Builder b) {
    this.handler = b.handler;
    this.listener = b.listener;
    this.endpointId = b.endpointId;
    this.name = b.endpointId.isEmpty() ? "endpoint" : "endpoint " + b.endpointId;
    this.capacity = b.capacity;
    this.workers = Executors.newFixedThreadPool(capacity, Threads.named("allot-endpoint-handler-"));
    this.heartbeats = Executors.newSingleThreadScheduledExecutor(Threads.named("allot-endpoint-heartbeat-"));
  }

  /** A builder for an endpoint running {@code handler}. */
  public static Builder builder(JobHandler handler) {
    return new Builder(handler);
  }

  /** How many handlers run now. */
  public int running() {
    return running.get();
  }

  /** How many dispatcher streams are open now. */
  public int streams() {
    return streams.get();
  }

  /** The capacity each stream is granted. */
  public int capacity() {
    return capacity;
  }

  @Override
  public StreamObserver<DispatcherMessage> dispatch(StreamObserver<EndpointMessage> responses) {
    return new Stream((ServerCallStreamObserver<EndpointMessage>) responses);
  }

  /**
   * Ends every stream (no more results are sent), stops the running jobs (they run again after their locks
   * expire) and refuses new streams. For a graceful stop, stop the dispatcher first.
   */
  @Override
  public void close() {
    closed = true;
    for (Stream s : live) {
      s.end();
    }
    heartbeats.shutdownNow();
    workers.shutdownNow();
  }

  /**
   * One dispatcher's stream: answers its Hello with Ready (repeated as the heartbeat), runs its jobs, sends their
   * results, tells the listener its verdicts, stops the jobs it cancels, and all of its jobs when it ends or its
   * deadline passes.
   */
  private final class Stream implements StreamObserver<DispatcherMessage> {
    private final ServerCallStreamObserver<EndpointMessage> out;
    private final Map<AttemptKey, Running> jobs = new ConcurrentHashMap<>();
    /** Written once by the Hello (gRPC delivers messages of one call in order); volatile for the handler threads. */
    private volatile String queue = "";
    private volatile String dispatcher = "";
    /** Guarded by {@code out}. */
    private boolean done;
    /** Written by the Hello only. */
    private volatile ScheduledFuture<?> heartbeat;
    /**
     * The stream's deadline ({@code System.nanoTime()}), valid once {@code armed}: written by the gRPC thread that
     * delivers this call's messages (one at a time), read by the watchdog on the heartbeat thread.
     */
    private volatile long deadlineNanos;
    private volatile boolean armed;

    Stream(ServerCallStreamObserver<EndpointMessage> out) {
      this.out = out;
      streams.incrementAndGet();
      live.add(this);
      out.setOnCancelHandler(this::broken);
    }

    @Override
    public void onNext(DispatcherMessage m) {
      switch (m.getKindCase()) {
        case HELLO -> hello(m.getHello());
        case HEARTBEAT -> deadline(m.getHeartbeat().getStopAfterMs(), true);
        case JOB -> {
          deadline(m.getJob().getStopAfterMs(), false);
          job(m.getJob());
        }
        case VERDICT -> {
          Running r = jobs.remove(new AttemptKey(m.getVerdict().getKey(), m.getVerdict().getToken()));
          if (r != null) {
            verdict(r, Wire.fromWire(m.getVerdict().getOutcome()));
          }
        }
        case CANCEL -> {
          Running r = jobs.get(new AttemptKey(m.getCancel().getKey(), m.getCancel().getToken()));
          if (r != null) {
            log.info("{}: dispatcher cancelled {}: {}", name, r.ctx, m.getCancel().getReason());
            r.stop();
          }
        }
        default -> log.warn("{}: unknown message from dispatcher {} ignored", name, dispatcher);
      }
    }

    private void hello(io.allot.jobs.v1.Hello h) {
      if (closed) {
        end();
        return;
      }
      queue = h.getQueue();
      dispatcher = h.getDispatcher();
      log.info("{}: dispatcher {} (lease token {}) connected for queue {}", name, dispatcher,
          h.getLeaseToken(), queue);
      EndpointMessage ready = Wire.ready(endpointId, capacity);
      send(ready);
      long every = Math.max(10, h.getHeartbeatMs());
      heartbeat = heartbeats.scheduleAtFixedRate(() -> send(ready), every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Moves the deadline {@code stopAfterMs} from now (0: the dispatcher gives none): a Heartbeat sets it, as it covers
     * every job received before it; a Job only brings it nearer (or sets the first one). A check runs at the new
     * deadline; one that finds the deadline moved later does nothing.
     */
    private void deadline(long stopAfterMs, boolean heartbeat) {
      if (stopAfterMs <= 0) {
        return;
      }
      long ms = Math.min(stopAfterMs, JobHandler.RetryAfter.MAX_WAIT.toMillis());
      long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
      if (heartbeat || !armed || at - deadlineNanos < 0) {
        deadlineNanos = at;
        armed = true;
        try {
          heartbeats.schedule(this::checkDeadline, ms, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
          // the endpoint is closed: its streams end anyway
        }
      }
    }

    /**
     * The watchdog: past the deadline the dispatcher may no longer be keeping the jobs' locks (a cut that closed
     * nothing looks like this), so every handler of the stream is stopped before another endpoint can get its job,
     * no result is sent, and the stream is closed with an error naming the deadline.
     */
    private void checkDeadline() {
      long late = System.nanoTime() - deadlineNanos;
      if (!armed || late < 0) {
        return;
      }
      synchronized (out) {
        if (done) {
          return;
        }
        done = true;
        try {
          out.onError(io.grpc.Status.UNAVAILABLE.withDescription("endpoint " + endpointId + " heard no Heartbeat "
              + "from dispatcher " + dispatcher + " by its deadline: its jobs were stopped").asRuntimeException());
        } catch (RuntimeException e) {
          log.debug("{}: closing the stream failed: {}", name, e.toString());
        }
      }
      log.warn("{}: heard nothing from dispatcher {} by the deadline it gave ({} ms late): stopping the stream's {} "
          + "jobs (their results are not sent; they run again once their locks expire) and closing it", name,
          dispatcher, TimeUnit.NANOSECONDS.toMillis(late), jobs.size());
      cleanUp();
    }

    private void job(io.allot.jobs.v1.Job j) {
      ClaimedJob job = Wire.claimed(j);
      Running r = new Running(job);
      AttemptKey id = new AttemptKey(job.key(), job.token());
      jobs.put(id, r);
      try {
        r.handle.attach(workers.submit(() -> run(r)));
      } catch (RejectedExecutionException e) {
        r.error = AttemptReporter.describe(new IllegalStateException("endpoint " + endpointId + " is closed"));
        send(Wire.result(job.key(), job.token(), r.error, null));
      }
    }

    private void run(Running r) {
      Throwable error = null;
      running.incrementAndGet();
      try {
        if (r.ctx.stopRequested()) {
          // cancelled while waiting for a thread: report it (the result frees the credit; the store refuses it)
          throw new CancellationException("cancelled before it started");
        }
        handler.handle(r.ctx);
      } catch (Throwable e) {
        error = e;
      } finally {
        running.decrementAndGet();
      }
      r.error = error == null ? null : AttemptReporter.describe(error);
      send(Wire.result(r.ctx.key(), r.ctx.token(), r.error, error == null ? null : AttemptReporter.retryAfter(error)));
    }

    private void verdict(Running r, AttemptOutcome outcome) {
      AttemptEnd end = new AttemptEnd(queue, r.ctx.key(), r.ctx.token(), r.ctx.attempt(), outcome,
          Optional.ofNullable(r.error), endpointId);
      try {
        listener.ended(end);
      } catch (RuntimeException e) {
        log.warn("{}: attempt listener failed for {}", name, end, e);
      }
    }

    /** Sends {@code m} unless the stream ended. */
    private void send(EndpointMessage m) {
      synchronized (out) {
        if (done) {
          return;
        }
        try {
          out.onNext(m);
        } catch (RuntimeException e) {
          log.debug("{}: send to dispatcher {} failed: {}", name, dispatcher, e.toString());
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      log.warn("{}: stream from dispatcher {} broke: {}", name, dispatcher, t.toString());
      broken();
    }

    @Override
    public void onCompleted() {
      log.info("{}: dispatcher {} ended its stream", name, dispatcher);
      end();
    }

    /** Ends our half (the dispatcher drops the stream's jobs) and stops the jobs. */
    void end() {
      synchronized (out) {
        if (done) {
          return;
        }
        done = true;
        try {
          out.onCompleted();
        } catch (RuntimeException e) {
          log.debug("{}: ending the stream failed: {}", name, e.toString());
        }
      }
      cleanUp();
    }

    private void broken() {
      synchronized (out) {
        if (done) {
          return;
        }
        done = true;
      }
      cleanUp();
    }

    private void cleanUp() {
      live.remove(this);
      streams.decrementAndGet();
      ScheduledFuture<?> hb = heartbeat;
      if (hb != null) {
        hb.cancel(false);
      }
      jobs.values().forEach(Running::stop);
      jobs.clear();
    }

    /** One pushed attempt on this stream. */
    private final class Running {
      final JobContext ctx;
      /** Stops the handler: the dispatcher cancelled it or the stream ended (then it no longer counts). */
      final RunHandle handle = new RunHandle();
      /** The failure reported, written before the result is sent; read by the verdict. */
      volatile String error;

      Running(ClaimedJob job) {
        this.ctx = new JobContext(queue, job, handle::stopped);
      }

      void stop() {
        handle.stop();
      }
    }
  }

  /** One attempt: (key, token). */
  private record AttemptKey(String key, long token) {}

  /** Settings of a {@link JobEndpoint}; each setter checks its value and names it when bad. */
  public static final class Builder {
    private final JobHandler handler;
    private AttemptListener listener = end -> { };
    private String endpointId = "";
    private int capacity = 4;

    private Builder(JobHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** Handlers running at once, and the credits each dispatcher stream gets (1 to 10,000); default 4. */
    public Builder capacity(int capacity) {
      if (capacity < 1 || capacity > Wire.MAX_CAPACITY) {
        throw new IllegalArgumentException("capacity must be in [1, " + Wire.MAX_CAPACITY + "] but was " + capacity);
      }
      this.capacity = capacity;
      return this;
    }

    /** The id the dispatcher records as the jobs' worker; default: the address it dialled. */
    public Builder endpointId(String endpointId) {
      Objects.requireNonNull(endpointId, "endpointId");
      this.endpointId = endpointId;
      return this;
    }

    /**
     * Told of each attempt's end when the dispatcher's verdict arrives: what the store did with the result, or
     * {@link AttemptOutcome#UNKNOWN} when the dispatcher could not reach it in time. Not told when the stream ended
     * first.
     */
    public Builder listener(AttemptListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The endpoint; add it to an {@link io.grpc.Server}. */
    public JobEndpoint build() {
      return new JobEndpoint(this);
    }
  }

  /** For logs. */
  @Override
  public String toString() {
    return "JobEndpoint[" + endpointId + ", capacity " + capacity + ", running " + running.get() + "]";
  }

}
