package io.allot.cli;

import io.allot.jobs.AttemptListener;
import io.allot.jobs.AttemptOutcome;
import io.allot.jobs.JobWorker;
import io.allot.server.config.GoDuration;
import io.allot.server.queues.QueueOps;
import io.allot.store.Store;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.DoubleConsumer;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code allot job ...}: jobs (finite queued work) from the command line. */
@Command(
    name = "job",
    description = {
      "Jobs (finite queued work): enqueues, inspects, retries or ignores the jobs of a queue, or runs their workers.",
      "A reference worker claims from the store; a dispatcher pushes jobs over gRPC to endpoints that cannot reach "
          + "the store.",
      "Statuses (stored codes): todo 0, failed 20, processing 30, finished 50, ignored 70."
    },
    subcommands = {JobCommand.Enqueue.class, JobCommand.Stats.class, JobCommand.Retry.class,
        JobCommand.Ignore.class, JobCommand.Worker.class, JobCommand.Dispatcher.class,
        JobCommand.Endpoint.class})
final class JobCommand extends ParentCommand {
  /** The options every queue subcommand takes. */
  static final class QueueOptions {
    @Mixin StoreOption store;

    @Option(names = {"-queue", "--queue"}, paramLabel = "NAME", required = true, description = "The queue.")
    String queue;

    /**
     * Opens the store for a long-running command (a worker, a dispatcher): never {@code memory:}, whose queue no
     * other process could reach.
     */
    Store openShared(String clientName, PrintWriter err) {
      if (StoreOption.isMemory(store.uri(clientName))) {
        throw new BadInputException("-store memory: a queue must be shared; use redis://... or postgresql://...");
      }
      return store.open(clientName, err);
    }

    /** Opens the store and the queue; a bad queue name is bad input. */
    JobQueue open(Store s) {
      try {
        return s.jobQueue(queue);
      } catch (IllegalArgumentException e) {
        s.close();
        throw new BadInputException("--queue: " + e.getMessage());
      }
    }
  }

  /**
   * What the worker and the dispatcher share: the queue (opened on a shared store), the event lines, the lock per
   * claimed job and the rate limit.
   */
  static final class ClaimOptions {
    @Mixin QueueOptions q;

    @Option(names = {"-lock-ttl", "--lock-ttl"}, paramLabel = "DURATION", defaultValue = "30s",
        description = "Lock per claimed job. Default ${DEFAULT-VALUE}.")
    String lockTtl;

    Duration lockTtl() {
      return GoDuration.parsePositive(lockTtl, "--lock-ttl");
    }

    @Option(names = {"-rate-limit", "--rate-limit"}, paramLabel = "RATE", defaultValue = "-1",
        description = "Sets the queue's rate limit (jobs/s over all workers; 0 = none) at start. Default: left as it is.")
    double rateLimit;

    /** Passes the rate limit to {@code set} if one was given. */
    void rateLimit(DoubleConsumer set) {
      if (rateLimit >= 0) {
        set.accept(rateLimit);
      }
    }

    @Option(names = {"-events", "--events"}, paramLabel = "FILE", description = "Also append every line to FILE.")
    Path events;

    /**
     * Prints, and appends to --events, a line per attempt end, {@code <epoch-ms> <word> <key> <token>}, followed by
     * where it ran if {@code withRanBy}.
     */
    AttemptListener eventLines(PrintWriter out, boolean withRanBy) {
      WorkerCommand.EventLog log = new WorkerCommand.EventLog(out, events);
      return end -> log.line(word(end.outcome()) + " " + end.key() + " " + end.token()
          + (withRanBy ? " " + end.ranBy() : ""));
    }

    /**
     * Opens the queue on {@code s} (from {@link QueueOptions#openShared}) and builds on it; a setting the builder
     * refuses closes the store and is bad input naming it.
     */
    <T> T build(Store s, Function<JobQueue, T> build) {
      JobQueue queue = q.open(s);
      try {
        return build.apply(queue);
      } catch (IllegalArgumentException e) {
        s.close();
        throw new BadInputException(e.getMessage());
      }
    }
  }

  @Command(name = "enqueue", description = {
      "Adds jobs from FILE (or standard input): one per line, 'key' or 'key<TAB>data'.",
      "Keys already in the queue are left as they are (enqueue is idempotent). The whole input is checked before "
          + "anything is written: a bad line is reported with its number and nothing is enqueued."})
  static final class Enqueue implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin QueueOptions q;

    @Option(names = {"-file", "--file"}, paramLabel = "FILE", description = "Read jobs from FILE, not stdin.")
    Path file;

    @Option(names = {"-max-attempts", "--max-attempts"}, paramLabel = "N", defaultValue = "5", description = "Attempts per job. Default ${DEFAULT-VALUE}.")
    int maxAttempts;

    @Option(names = {"-priority", "--priority"}, paramLabel = "N", defaultValue = "0", description = "Higher runs first. Default ${DEFAULT-VALUE}.")
    int priority;

    @Option(names = {"-delay", "--delay"}, paramLabel = "DURATION", defaultValue = "0s", description = "Runnable after this long (Go syntax). Default ${DEFAULT-VALUE}.")
    String delay;

    @Override
    public Integer call() throws IOException {
      Duration d = GoDuration.parse(delay, "--delay");
      List<NewJob> jobs;
      jobs = parse(file == null ? "stdin" : file.toString(), read(file), maxAttempts, priority, d);
      try (Store s = q.store.open("allot-jobs-enqueue", spec.commandLine().getErr())) {
        JobQueue queue = q.open(s);
        int added = 0;
        for (int i = 0; i < jobs.size(); i += 1000) {
          added += queue.enqueue(jobs.subList(i, Math.min(jobs.size(), i + 1000)));
        }
        spec.commandLine().getOut().printf("enqueued %d of %d jobs into queue %s (%d already there)%n", added,
            jobs.size(), queue.name(), jobs.size() - added);
      }
      return 0;
    }

    /** The bytes of {@code file}, or of stdin if null; a file that cannot be read is bad input naming it. */
    private static byte[] read(Path file) {
      try {
        return file == null ? System.in.readAllBytes() : Files.readAllBytes(file);
      } catch (java.nio.file.NoSuchFileException e) {
        throw new BadInputException("--file " + file + ": no such file; nothing enqueued");
      } catch (IOException e) {
        throw new BadInputException("--file " + (file == null ? "stdin" : file) + ": cannot read it (" + e
            + "); nothing enqueued");
      }
    }

    /** Every line checked first; the first bad one is reported with its number. */
    static List<NewJob> parse(String source, byte[] bytes, int maxAttempts, int priority, Duration delay) {
      String text;
      CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
      try {
        text = dec.decode(ByteBuffer.wrap(bytes)).toString();
      } catch (CharacterCodingException e) {
        throw new BadInputException(source + ": not valid UTF-8 (" + e.getMessage() + "); nothing enqueued");
      }
      List<NewJob> out = new ArrayList<>();
      Map<String, Integer> lineOf = new HashMap<>();
      String[] lines = text.split("\r?\n", -1);
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i];
        if (line.isEmpty() && i == lines.length - 1) {
          break; // the newline at the end of the last line
        }
        int tab = line.indexOf('\t');
        String key = tab < 0 ? line : line.substring(0, tab);
        String data = tab < 0 ? "" : line.substring(tab + 1);
        try {
          NewJob t = new NewJob(key, data, delay, priority, maxAttempts);
          Integer first = lineOf.putIfAbsent(key, i + 1);
          if (first != null) {
            throw new IllegalArgumentException("job key '" + key + "' is also on line " + first);
          }
          out.add(t);
        } catch (IllegalArgumentException e) {
          throw new BadInputException(source + " line " + (i + 1) + ": " + e.getMessage() + "; nothing enqueued");
        }
      }
      return out;
    }
  }

  @Command(name = "stats", description = {"Counts per status, the oldest todo, the rate limit and recent failures.",
      "A queue that holds no job and has no rate limit is unknown: one line naming it, exit 2."})
  static final class Stats implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin QueueOptions q;

    @Option(names = {"-failures", "--failures"}, paramLabel = "N", defaultValue = "10", description = "Failures to list. Default ${DEFAULT-VALUE}.")
    int failures;

    @Override
    public Integer call() {
      if (failures < 0) {
        throw new BadInputException("--failures must be >= 0 but was " + failures);
      }
      try (Store s = q.store.open("allot-jobs-stats", spec.commandLine().getErr())) {
        JobQueue queue = q.open(s);
        QueueStats st;
        try {
          st = new QueueOps(s).stats(queue, failures);
        } catch (QueueOps.NoSuchQueueException e) { // the one trace a queue leaves in every store
          throw new BadInputException("--queue " + queue.name() + ": no such queue: it holds no job and no rate "
              + "limit (never used, or every job purged) on " + s.describe());
        }
        long now = s.clock().timeMillis();
        PrintWriter out = spec.commandLine().getOut();
        out.printf("queue %s on %s%n", queue.name(), s.describe());
        for (JobStatus status : JobStatus.values()) {
          out.printf("  %-10s (%2d) %10d%n", status.name().toLowerCase(), status.code(), st.count(status));
        }
        out.printf("  %-15s %10d%n", "total", st.total());
        out.printf("oldest todo: %s%n", st.oldestTodoMillis().isPresent()
            ? Instant.ofEpochMilli(st.oldestTodoMillis().getAsLong()) + " (" + Math.max(0,
                now - st.oldestTodoMillis().getAsLong()) + " ms ago)" : "none");
        out.printf("rate limit: %s%n", st.ratePerSecond() > 0 ? st.ratePerSecond() + " jobs/s" : "none");
        if (!st.failures().isEmpty()) {
          out.println("recent failures:");
          for (Job t : st.failures()) {
            out.printf("  %s  %s  attempts %d/%d  %s%n", Instant.ofEpochMilli(t.updatedAtMillis()),
                t.status().name().toLowerCase(), t.attempts(), t.maxAttempts(), t.key());
            out.printf("      %s%n", t.lastError().replace("\n", "\n      "));
          }
        }
      }
      return 0;
    }
  }

  /** retry and ignore: keys by hand, with the code of the REST routes ({@link QueueOps}). */
  abstract static class ByHand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin QueueOptions q;

    @Parameters(paramLabel = "KEY", arity = "1..*", description = "Job keys.")
    List<String> keys;

    abstract int apply(QueueOps ops, JobQueue queue, List<String> keys);

    /** Tells the event history which jobs were changed ({@code n} of the keys). */
    private void record(Store s, JobQueue queue, int n) {
      boolean retry = verb().equals("retry");
      List<String> changed = n == keys.size() ? keys.stream().distinct().toList() : keys.stream().distinct()
          .filter(k -> queue.get(k).map(j -> j.status() == (retry ? JobStatus.TODO : JobStatus.IGNORED))
              .orElse(false)).toList();
      io.allot.store.events.JobEvents events = new io.allot.store.events.JobEvents(
          io.allot.store.events.EventWriter.of(s));
      if (retry) {
        events.retried(io.allot.store.events.JobEvents.cliActor(), queue.name(), changed);
      } else {
        events.ignored(io.allot.store.events.JobEvents.cliActor(), queue.name(), changed);
      }
    }

    /** The subcommand's name (retry, ignore): the verb of its messages and its client name. */
    String verb() {
      return spec.name();
    }

    @Override
    public Integer call() {
      try {
        QueueOps.checkKeys(keys);
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      }
      try (Store s = q.store.open("allot-jobs-" + verb(), spec.commandLine().getErr())) {
        JobQueue queue = q.open(s);
        QueueOps ops = new QueueOps(s);
        int n;
        try {
          n = apply(ops, queue, keys);
        } catch (QueueOps.FinishedException e) {
          throw new BadInputException(e.getMessage());
        }
        record(s, queue, n);
        spec.commandLine().getOut().printf("%s %d of %d jobs in queue %s%n", verb().equals("retry") ? "retried"
            : "ignored", n, keys.size(), queue.name());
        if (n < keys.size()) {
          List<String> missing = ops.missing(queue, keys);
          if (!missing.isEmpty()) {
            spec.commandLine().getErr().printf("allot: not in queue %s: %s%n", queue.name(),
                String.join(", ", missing));
          }
        }
        return n == keys.size() ? 0 : 1;
      }
    }
  }

  @Command(name = "retry", description = "Sends jobs back to todo, due now, attempts reset. Exit 1 if a key is missing.")
  static final class Retry extends ByHand {
    @Override
    int apply(QueueOps ops, JobQueue queue, List<String> keys) {
      return ops.retry(queue, keys);
    }
  }

  @Command(name = "ignore", description = "Marks jobs ignored (70). Exit 1 if a key is missing; exit 2, nothing changed, if one"
      + " is finished.")
  static final class Ignore extends ByHand {
    /**
     * A finished job stays finished: ignoring it would hide that it ran ({@link QueueOps#ignore}: the whole command
     * is refused, nothing changed; a job that finished between the check and the ignore is named, the others were
     * ignored).
     */
    @Override
    int apply(QueueOps ops, JobQueue queue, List<String> keys) {
      return ops.ignore(queue, keys);
    }
  }

  @Command(name = "worker", description = {
      "Runs a reference worker that claims the jobs of a queue from the store and runs them.",
      "Each job sleeps --work-ms and fails with --fail-rate, or as its data says: 'fail-once' fails the first "
          + "attempt, 'fail-always' every attempt. Prints one line per attempt end, written only after the store "
          + "answered (unknown: its answer did not come before the lock ran out):",
      "  <epoch-ms> done|failed|ignored|rejected|unknown <key> <token>",
      "Runs until SIGTERM or 'quit' on standard input; then drains (running jobs finish)."})
  static final class Worker implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClaimOptions c;
    @Mixin ReferenceWork work;

    @Option(names = {"-concurrency", "--concurrency"}, paramLabel = "N", defaultValue = "4", description = "Jobs at once. Default ${DEFAULT-VALUE}.")
    int concurrency;

    @Option(names = {"-batch", "--batch"}, paramLabel = "N", defaultValue = "0", description = "Most jobs per claim (0 = the worker's default, 256; the claims adapt to the handlers and the store).")
    int batch;

    @Option(names = {"-poll-interval", "--poll-interval"}, paramLabel = "DURATION", defaultValue = "500ms", description = "Claim again after this when idle. Default ${DEFAULT-VALUE}.")
    String pollInterval;

    @Option(names = {"-backoff", "--backoff"}, paramLabel = "DURATION", defaultValue = "1s", description = "Wait after a failed attempt (doubling, at most 10m). Default ${DEFAULT-VALUE}.")
    String backoff;

    @Override
    public Integer call() throws Exception {
      work.check();
      Duration ttl = c.lockTtl();
      Duration poll = GoDuration.parsePositive(pollInterval, "--poll-interval");
      Duration firstWait = GoDuration.parse(backoff, "--backoff");
      AttemptListener lines = c.eventLines(spec.commandLine().getOut(), false);
      Store s = c.q.openShared("allot-jobs-worker", spec.commandLine().getErr());
      JobWorker worker = c.build(s, queue -> {
        JobWorker.Builder b = JobWorker.builder(queue, t -> work.run(t.data(), t.attempt())).listener(lines)
            .events(io.allot.store.events.EventWriter.of(s)).concurrency(concurrency).lockTtl(ttl).pollInterval(poll)
            .backoff(new io.allot.jobs.Backoff(firstWait, 2.0, Duration.ofMinutes(10).compareTo(firstWait) < 0
                ? firstWait : Duration.ofMinutes(10)));
        if (batch > 0) {
          b.batchSize(batch);
        }
        c.rateLimit(b::rateLimit);
        return b.build();
      });
      CountDownLatch done = closeOnShutdown("allot-jobs-worker-shutdown", worker, s);
      worker.start();
      Thread commands = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            if (line.trim().equals("quit")) {
              System.exit(0);
            }
          }
        } catch (IOException e) {
          // no standard input: run until SIGTERM
        }
      }, "allot-jobs-worker-stdin");
      commands.setDaemon(true);
      commands.start();
      done.await();
      return 0;
    }
  }


  /** The word of an event line for an attempt's end. */
  static String word(AttemptOutcome outcome) {
    return switch (outcome) {
      case FINISHED -> "done";
      case RETRY_SCHEDULED -> "failed";
      case IGNORED -> "ignored";
      case REJECTED -> "rejected";
      case UNKNOWN -> "unknown";
    };
  }

  /**
   * Closes {@code closeables} in order when the JVM shuts down (SIGTERM, System.exit); the latch opens once they
   * are closed.
   */
  static CountDownLatch closeOnShutdown(String threadName, AutoCloseable... closeables) {
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (AutoCloseable c : closeables) {
        try {
          c.close();
        } catch (Exception e) {
          // shutting down: the next one still closes
        }
      }
      done.countDown();
    }, threadName));
    return done;
  }

  @Command(name = "dispatcher", description = {
      "Pushes the jobs of a queue over gRPC to worker endpoints that cannot reach the store.",
      "Claims the jobs at the queue's rate limit and pushes them to the endpoints (`allot job endpoint`, or any "
          + "server of allot/jobs/v1/jobs.proto). Leader-elected: run several, one dispatches. Prints one line per "
          + "result, after the store answered:",
      "  <epoch-ms> done|failed|ignored|rejected|unknown <key> <token> <endpoint>"})
  static final class Dispatcher implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClaimOptions c;

    @Option(names = {"-endpoints", "--endpoints"}, paramLabel = "ADDRESS", split = ",",
        description = "The endpoints to push to. Or --pool.")
    List<String> endpoints;

    @Option(names = {"-pool", "--pool"}, paramLabel = "NAME", description = "Push to the live members of this allot pool.")
    String pool;

    @Option(names = {"-lease-ttl", "--lease-ttl"}, paramLabel = "DURATION", defaultValue = "10s", description = "Leadership lease. Default ${DEFAULT-VALUE}.")
    String leaseTtl;

    @Option(names = {"-batch", "--batch"}, paramLabel = "N", defaultValue = "100", description = "Jobs per claim. Default ${DEFAULT-VALUE}.")
    int batch;

    @Mixin TlsClientOptions tls;

    @Option(names = {"-endpoint-token", "--endpoint-token"}, paramLabel = "TOKEN", defaultValue = "",
        description = "The token sent to the endpoints on every dispatch stream (authorization: Bearer), as their "
            + "-dispatcher-token requires.")
    String endpointToken;

    @Override
    public Integer call() throws Exception {
      if ((endpoints == null) == (pool == null)) {
        throw new BadInputException("give either --endpoints HOST:PORT,... or --pool NAME");
      }
      Duration lock = c.lockTtl();
      Duration lease = GoDuration.parsePositive(leaseTtl, "--lease-ttl");
      io.grpc.ChannelCredentials channel = tls.credentials(); // bad TLS files fail here
      io.grpc.CallCredentials credentials;
      try {
        credentials = endpointToken.isEmpty() ? null : io.allot.server.auth.GrpcAuth.bearer(endpointToken);
      } catch (IllegalArgumentException e) {
        throw new BadInputException("--endpoint-token: " + e.getMessage());
      }
      AttemptListener lines = c.eventLines(spec.commandLine().getOut(), true);
      Store s = c.q.openShared("allot-jobs-dispatcher", spec.commandLine().getErr());
      io.allot.jobs.JobDispatcher d = c.build(s, queue -> {
        io.allot.jobs.EndpointSource source = endpoints != null
            ? io.allot.jobs.EndpointSource.fixed(endpoints)
            : io.allot.jobs.EndpointSource.members(s.membership(pool), s.clock());
        io.allot.jobs.JobDispatcher.Builder b = io.allot.jobs.JobDispatcher.builder(queue, source)
            .leadership(s.leadership()).leaseTtl(lease).lockTtl(lock).batchSize(batch).listener(lines)
            .channelCredentials(channel).events(io.allot.store.events.EventWriter.of(s));
        c.rateLimit(b::rateLimit);
        if (credentials != null) {
          b.callCredentials(credentials);
        }
        return b.build();
      });
      CountDownLatch done = closeOnShutdown("allot-jobs-dispatcher-shutdown", d, s);
      d.start();
      done.await();
      return 0;
    }
  }

  @Command(name = "endpoint", description = {
      "Runs a reference worker endpoint for `allot job dispatcher`: a gRPC server on --port that runs pushed jobs.",
      "Each job sleeps --work-ms and fails with --fail-rate, or as its data says: 'fail-once', 'fail-always'."})
  static final class Endpoint implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = {"-port", "--port"}, paramLabel = "PORT", required = true, description = "The gRPC port to listen on.")
    int port;

    @Option(names = {"-capacity", "--capacity"}, paramLabel = "N", defaultValue = "4", description = "Jobs at once. Default ${DEFAULT-VALUE}.")
    int capacity;

    @Mixin ReferenceWork work;

    @Mixin TlsOptions tls;

    @Mixin DispatchTokenOptions tokens;

    @Option(names = {"-prom-port", "--prom-port"}, paramLabel = "PORT",
        description = "Serve /metrics (refused dispatch streams: allot_api_refused_total{channel=\"dispatch\"}), "
            + "/healthz and /version on this HTTP port, over HTTPS with the -tls-cert/-tls-key; 0 picks a free one. "
            + "Default: none.")
    Integer promPort;

    @Override
    public Integer call() throws Exception {
      if (port < 1 || port > 65535) {
        throw new BadInputException("--port must be in [1, 65535] but was " + port);
      }
      if (promPort != null && (promPort < 0 || promPort > 65535)) {
        throw new BadInputException("-prom-port: " + promPort + " is not a port");
      }
      work.check();
      // an endpoint has no store: its refusals are counted here (and written to the history by the refused dispatcher)
      io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry = new io.micrometer.prometheusmetrics
          .PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
      io.allot.server.auth.Authenticator auth = tokens.authenticator(registry, null);
      io.allot.jobs.JobEndpoint endpoint;
      try {
        endpoint = io.allot.jobs.JobEndpoint.builder(t -> work.run(t.data(), t.attempt())).capacity(capacity).endpointId("127.0.0.1:" + port).build();
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      }
      io.grpc.Server server = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
          .forAddress(new java.net.InetSocketAddress(port), tls.credentials())
          .addService(DispatchTokenOptions.checked(endpoint, auth)).build();
      try {
        server.start();
      } catch (IOException e) {
        throw new BadInputException("--port " + port + ": cannot listen: " + e.getMessage());
      }
      io.allot.server.http.OpsHttpServer http = null;
      if (promPort != null) {
        try {
          http = ServerCommand.bound("-prom-port " + promPort, () -> new io.allot.server.http.OpsHttpServer(promPort,
              registry, Main.version(), () -> true, null, tls.server()));
        } catch (RuntimeException e) {
          server.shutdownNow();
          throw e;
        }
      }
      spec.commandLine().getErr().println("allot: endpoint listening on port " + port + " (capacity " + capacity + "), "
          + tls.describe() + "; " + DispatchTokenOptions.describe(auth)
          + (http == null ? "" : "; metrics on port " + http.port()));
      spec.commandLine().getErr().flush();
      closeOnShutdown("allot-jobs-endpoint-shutdown", server::shutdown, endpoint,
          http == null ? () -> { } : http).await();
      return 0;
    }
  }
}
