package io.allot.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import io.allot.cli.StoreOption;
import io.allot.jobs.JobWorker;
import io.allot.store.Store;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.postgres.PostgresStoreConfig;
import io.allot.store.postgres.PostgresUrl;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench jobs}: job throughput of allot's {@link JobWorker} against db-scheduler on the same
 * PostgreSQL in the same run, the same on Redis (allot only), the batched enqueue rate, the latency of one claim, and
 * a physical reference measured on the same server (single-row autocommit UPDATEs, pgbench-style).
 *
 * <p>Each worker process is a JVM of its own ({@link JobWorkerProcess}): its own store client with its own connection
 * pool and its own worker (allot) or its own HikariCP pool and {@link Scheduler} (db-scheduler), started and ready
 * before the clock starts; the bench's JVM enqueues and follows their progress. Every system gets its own PostgreSQL
 * schema, dropped at the end.
 */
@Command(
    name = "jobs",
    sortOptions = false,
    description = {
      "Jobs: allot's JobWorker vs db-scheduler on the same PostgreSQL, allot on Redis, enqueue rate, claim"
          + " latency, and a single-row UPDATE rate on the same server as the physical reference.",
      "N no-op jobs, P worker processes (JVMs of their own, each with its own pool and worker/scheduler) of T threads;"
          + " jobs/s from the first enqueue to the last finished."
    })
final class JobBench implements Callable<Integer> {
  @Mixin CommonOptions common;

  @Option(names = "--jobs", defaultValue = "100000", description = "No-op jobs per run (N). Default ${DEFAULT-VALUE}.")
  int jobs;

  @Option(names = "--processes", defaultValue = "2",
      description = "Worker processes (JVMs of their own, each with its own pool). Default ${DEFAULT-VALUE}.")
  int processes;

  @Option(names = "--threads", defaultValue = "4", description = "Worker threads per process (T). Default ${DEFAULT-VALUE}.")
  int threads;

  @Option(names = "--batch", defaultValue = "0",
      description = "allot's claim batchSize and prefetch, fixed (0 = the worker's defaults: the prefetch adapts, claims"
          + " of up to 256). Default ${DEFAULT-VALUE}.")
  int batch;

  @Option(names = "--enqueue-batch", defaultValue = "1000",
      description = "Jobs per enqueue call (both systems). Default ${DEFAULT-VALUE}.")
  int enqueueBatch;

  @Option(names = "--poll-ms", defaultValue = "100",
      description = "Poll interval when a claim found less than asked (allot pollInterval, db-scheduler pollingInterval)."
          + " Default ${DEFAULT-VALUE}.")
  int pollMillis;

  @Option(names = "--postgres", paramLabel = "URI", defaultValue = "postgresql://postgres@127.0.0.1:5432/test",
      description = "The PostgreSQL server (schemas of the bench's own are created and dropped), or 'none' to skip the"
          + " PostgreSQL part (and db-scheduler): Redis only. Default ${DEFAULT-VALUE}.")
  String postgres;

  @Option(names = "--redis", paramLabel = "URI", defaultValue = "redis://127.0.0.1:6379",
      description = "The Redis server, or 'none' to skip the Redis part. Default ${DEFAULT-VALUE}.")
  String redis;

  @Option(names = "--claims", defaultValue = "2000", description = "Claim calls timed for the latency. Default ${DEFAULT-VALUE}.")
  int claims;

  @Option(names = "--update-seconds", defaultValue = "3",
      description = "Seconds of the single-row UPDATE reference. Default ${DEFAULT-VALUE}.")
  int updateSeconds;

  @Option(names = "--what-if-jobs", defaultValue = "20000",
      description = "Jobs per store-level loop of the what-if section (0 skips it). Default ${DEFAULT-VALUE}.")
  int whatIfJobs;

  @Option(names = "--skip-db-scheduler", description = "Leave db-scheduler out (allot only).")
  boolean skipDbScheduler;

  @Option(names = "--quick", description = "A CI-sized run of a few seconds: 2000 jobs, 200 claims, 1 s of UPDATEs.")
  boolean quick;

  /** The run's id: part of every schema and queue name; set once in call(). */
  String runId;

  @Override
  public Integer call() throws Exception {
    if (quick) {
      jobs = Math.min(jobs, 2000);
      claims = Math.min(claims, 200);
      whatIfJobs = Math.min(whatIfJobs, 1000);
      updateSeconds = 1;
    }
    checkOptions();
    PrintWriter out = common.out();
    runId = UUID.randomUUID().toString().substring(0, 8);
    boolean withRedis = !redis.equalsIgnoreCase("none");
    boolean withPg = !postgres.equalsIgnoreCase("none");
    out.printf(Locale.ROOT, "queue bench: %d no-op jobs, %d processes x %d threads (each process a JVM of its own with"
        + " its own store client/connection pool and its own worker or scheduler), enqueue batches of %d, poll %d ms,"
        + " %d cores; load average %s%n", jobs, processes, threads, enqueueBatch, pollMillis, Runtime.getRuntime().availableProcessors(),
        loadAverage());
    out.printf(Locale.ROOT, "PostgreSQL %s; Redis %s%n", withPg ? PostgresUrl.parse(postgres) : "skipped", withRedis ? redis : "skipped");
    out.flush();

    List<String> schemas = new ArrayList<>();
    try {
      // 4. the physical reference first, on an idle server
      double updates = withPg ? updateRate(schemas, out) : 0;

      // 1. allot vs db-scheduler on PostgreSQL
      String allotSchema = "qbench_" + runId + "_allot";
      if (withPg) {
        schemas.add(allotSchema);
      }
      Run allotPg = withPg ? allotRun("allot/PostgreSQL", postgres, allotSchema, () -> pgStore(allotSchema), out) : null;
      Run dbs = null;
      if (withPg && !skipDbScheduler) {
        String dbsSchema = "qbench_" + runId + "_dbs";
        schemas.add(dbsSchema);
        dbs = new DbSchedulerRun(this).run(dbsSchema, out);
      }
      // 2. allot on Redis
      Run allotRedis = withRedis ? allotRun("allot/Redis", redis, null, () -> StoreOption.openUri(redis), out) : null;

      // 3 + 4. enqueue rate and claim latency, no workers running
      Figures pgFigures = withPg ? enqueueAndClaim("PostgreSQL", () -> pgStore(allotSchema), out) : null;
      Figures redisFigures = withRedis ? enqueueAndClaim("Redis", () -> StoreOption.openUri(redis), out) : null;

      JobWhatIf.Result whatIf = whatIfJobs > 0 ? new JobWhatIf(this).run(withPg ? allotSchema : null, withRedis, out)
          : new JobWhatIf.Result(List.of(), java.util.Map.of());

      out.println();
      out.println("summary (load average at the end " + loadAverage() + ")");
      if (allotPg != null) {
        out.printf(Locale.ROOT, "  reference: single-row autocommit UPDATE, 4 threads: %,.0f /s%n", updates);
        out.printf(Locale.ROOT, "  allot/PostgreSQL end to end: %,.0f jobs/s (%.2f statements/job; %.1f%% of the"
            + " UPDATE rate)%n", allotPg.rate(), allotPg.statementsPerJob(), 100 * allotPg.rate() / updates);
      }
      if (dbs != null) {
        out.printf(Locale.ROOT, "  db-scheduler end to end: %,.0f jobs/s%n", dbs.rate());
        out.printf(Locale.ROOT, "  ratio allot/db-scheduler, same run: %.2f (goal >= 3.00: %s)%n",
            allotPg.rate() / dbs.rate(), allotPg.rate() >= 3 * dbs.rate() ? "met" : "NOT met");
      }
      Double pgLoop = whatIf.best().get("PostgreSQL");
      if (pgLoop != null && allotPg != null) {
        out.printf(Locale.ROOT, "  allot/PostgreSQL vs the best store-level loop below (%,.0f jobs/s): %.0f%% (goal >="
            + " 70%%: %s)%n", pgLoop, 100 * allotPg.rate() / pgLoop, allotPg.rate() >= 0.7 * pgLoop ? "met" : "NOT met");
      }
      if (allotRedis != null) {
        out.printf(Locale.ROOT, "  allot/Redis end to end: %,.0f jobs/s (goal >= 50,000: %s)%n", allotRedis.rate(),
            allotRedis.rate() >= 50_000 ? "met" : "NOT met");
        Double redisLoop = whatIf.best().get("Redis");
        if (redisLoop != null) {
          out.printf(Locale.ROOT, "  allot/Redis vs the best store-level loop below (%,.0f jobs/s): %.0f%%%n", redisLoop,
              100 * allotRedis.rate() / redisLoop);
        }
      }
      whatIf.lines().forEach(line -> out.println("  what-if " + line));
      if (pgFigures != null) {
        summary(out, pgFigures);
      }
      if (redisFigures != null) {
        summary(out, redisFigures);
      }
      out.flush();
      return 0;
    } finally {
      dropSchemas(schemas);
    }
  }

  private void summary(PrintWriter out, Figures f) {
    // the claim of 1 before issue 22 (docs/benchmarks.md, a quiet machine): PostgreSQL p99 0.65 ms, Redis 0.15 ms
    double before = f.store.equals("Redis") ? 0.15 : 0.65;
    out.printf(Locale.ROOT, "  %s enqueue, batches of %d: %,.0f jobs/s (goal >= 50,000: %s); claim of 1 p50 %.3f"
            + " ms p99 %.3f ms (goal: p99 unchanged or better than %.2f ms, measured before on a quiet machine: %s);"
            + " finish p50 %.3f ms p99 %.3f ms%n", f.store, enqueueBatch, f.enqueueRate,
        f.enqueueRate >= 50_000 ? "met" : "NOT met", f.claimP50, f.claimP99, before,
        f.claimP99 <= before * 1.1 ? "met" : "NOT met (compare the load average)", f.finishP50, f.finishP99);
  }

  private void checkOptions() {
    OptionChecks check = common.checks();
    check.atLeast("--jobs", jobs, 1, "");
    check.atLeast("--processes", processes, 1, "");
    check.atLeast("--threads", threads, 1, "");
    check.atLeast("--claims", claims, 1, "");
    check.atLeast("--what-if-jobs", whatIfJobs, 0, "");
    check.atLeast("--update-seconds", updateSeconds, 1, " (seconds)");
    check.atLeast("--poll-ms", pollMillis, 1, " ms");
    check.between("--enqueue-batch", enqueueBatch, 1, 10_000);
    check.between("--batch", batch, 0, 10_000);
  }

  // ---------------------------------------------------------------- allot end to end

  /** One end-to-end run's figures. */
  record Run(String name, long jobs, double enqueueSeconds, double totalSeconds, double statementsPerJob) {
    double rate() {
      return jobs / totalSeconds;
    }
  }

  PostgresStore pgStore(String schema) {
    // pool: the worker's dispatcher, its T handlers and its lock extender may each hold a connection at once
    return PostgresStore.connect(PostgresStoreConfig.builder(postgres).schema(schema).maxPoolSize(threads + 2).build());
  }

  private Run allotRun(String name, String storeUri, String schema, StoreFactory stores, PrintWriter out)
      throws Exception {
    String queueName = "qbench-" + runId + "-e2e";
    List<List<String>> args = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      args.add(List.of("allot", storeUri, schema == null ? "-" : schema, queueName, "qbench-" + runId + "-p" + p,
          Integer.toString(threads), Integer.toString(pollMillis), Integer.toString(batch)));
    }
    try (Store producerStore = stores.open()) {
      JobQueue producer = producerStore.jobQueue(queueName);
      try (WorkerProcesses workers = new WorkerProcesses(args)) {
        double redisCpu0 = schema == null ? redisCpuSeconds(storeUri) : Double.NaN;
        long benchCpu0 = JobWorkerProcess.cpuNanos();
        long t0 = System.nanoTime();
        for (int from = 0; from < jobs; from += enqueueBatch) {
          List<NewJob> chunk = new ArrayList<>(enqueueBatch);
          for (int i = from; i < Math.min(jobs, from + enqueueBatch); i++) {
            chunk.add(NewJob.of("t" + i));
          }
          producer.enqueue(chunk);
        }
        long enqueued = System.nanoTime();
        if (!workers.awaitDone(jobs, timeoutSeconds())) {
          throw new IllegalStateException(name + ": only " + workers.done() + " of " + jobs + " jobs finished in "
              + timeoutSeconds() + " s");
        }
        long t1 = System.nanoTime();
        long benchCpu = JobWorkerProcess.cpuNanos() - benchCpu0;
        double redisCpu = schema == null ? redisCpuSeconds(storeUri) - redisCpu0 : Double.NaN;
        long finishedInStore = producer.stats(0).count(JobStatus.FINISHED);
        long[] sum = new long[10];
        for (String line : workers.stop()) {
          String[] f = line.split(" ");
          for (int k = 0; k < Math.min(sum.length, f.length); k++) {
            sum[k] += Long.parseLong(f[k]);
          }
        }
        long claimCalls = sum[0];
        long emptyClaims = sum[1];
        long claimed = sum[2];
        long claimNanos = sum[3];
        long finishCalls = sum[4];
        long finishNanos = sum[5];
        long extendCalls = sum[6];
        long finishedJobs = sum[7];
        long rejected = sum[8];
        long workersCpu = sum[9];
        Run run = new Run(name, jobs, (enqueued - t0) / 1e9, (t1 - t0) / 1e9,
            (double) (claimCalls + finishCalls + extendCalls) / jobs);
        out.println();
        out.printf(Locale.ROOT, "%s: %,d jobs in %.2f s = %,.0f jobs/s end to end (enqueue of all took %.2f s,"
                + " concurrent with the workers); %,d finished in the store, %d completions refused%n", name, jobs,
            run.totalSeconds(), run.rate(), run.enqueueSeconds(), finishedInStore, rejected);
        out.printf(Locale.ROOT, "  worker settings: concurrency %d, %s, pollInterval %d ms, lockTtl 30 s, pool %d"
            + " connections per process; %d worker processes (JVMs of their own)%n", threads, batch > 0
            ? "batchSize " + batch + ", prefetch " + batch : "batchSize and prefetch: the worker's defaults (adaptive)",
            pollMillis, threads + 2, processes);
        out.printf(Locale.ROOT, "  store calls: %,d claims (%,d empty) of %.2f jobs on average, %.3f ms mean; %,d"
                + " finish/finishAll calls of %.2f jobs on average, %.3f ms mean; %,d extends; %.2f store calls per"
                + " job%n", claimCalls, emptyClaims, claimed / (double) Math.max(1, claimCalls - emptyClaims),
            claimNanos / 1e6 / Math.max(1, claimCalls), finishCalls, finishedJobs / (double) Math.max(1, finishCalls),
            finishNanos / 1e6 / Math.max(1, finishCalls), extendCalls, run.statementsPerJob());
        out.printf(Locale.ROOT, "  where the time went: the claim loops spent %.0f%% of the run in claim calls, the"
            + " finish calls took %.0f%% of the run (summed over the processes' finish calls)%n",
            100 * claimNanos / 1e9 / (processes * run.totalSeconds()),
            100 * finishNanos / 1e9 / (processes * run.totalSeconds()));
        cpuLine(out, redisCpu, workersCpu, benchCpu);
        out.flush();
        return run;
      } finally {
        if (schema == null) {
          purge(producer); // Redis: leave it as found (a PostgreSQL schema is dropped at the end)
        }
      }
    }
  }

  /** The machine's load average (1, 5, 15 min) from /proc/loadavg, or "unknown". */
  static String loadAverage() {
    try {
      String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown";
    }
  }

  long timeoutSeconds() {
    return Math.max(120, jobs / 200L);
  }

  /**
   * Where the CPU went, per job: the Redis server's ({@code INFO cpu}: every client's, so only this run's on a server
   * nothing else uses; NaN: not Redis or not readable), the worker processes' (summed, from their {@code ready}) and
   * this process's (the enqueuing thread, mostly); with the sum, the rate all of it allows on this machine's cores if
   * nothing else ran. This is how the bench shows what bounds an end-to-end rate on a small machine.
   */
  private void cpuLine(PrintWriter out, double redisCpuSeconds, long workersCpuNanos, long benchCpuNanos) {
    double redisUs = redisCpuSeconds * 1e6 / jobs;
    double workersUs = workersCpuNanos / 1e3 / jobs;
    double benchUs = benchCpuNanos / 1e3 / jobs;
    double total = (Double.isNaN(redisUs) ? 0 : redisUs) + workersUs + benchUs;
    int cores = Runtime.getRuntime().availableProcessors();
    out.printf(Locale.ROOT, "  CPU per job: %s, worker processes %.1f µs (summed), the enqueuing bench process %.1f µs;"
            + " together %.1f µs: at most %,.0f jobs/s on %d cores%s%n",
        Double.isNaN(redisUs) ? "store server not measured" : String.format(Locale.ROOT,
            "Redis server %.1f µs (one core at most: at most %,.0f jobs/s)", redisUs, 1e6 / redisUs),
        workersUs, benchUs, total, cores * 1e6 / total, cores, cores * 1e6 / total < 50_000 ? " (below the goal of 50,000)" : "");
  }

  /** The Redis server's CPU time so far ({@code INFO cpu}: user + system, seconds), or NaN if it cannot be read. */
  static double redisCpuSeconds(String uri) {
    io.lettuce.core.RedisClient client = null;
    try {
      client = io.lettuce.core.RedisClient.create(uri);
      try (var conn = client.connect()) {
        double s = 0;
        for (String line : conn.sync().info("cpu").split("\r?\n")) {
          if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
            s += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
          }
        }
        return s;
      }
    } catch (RuntimeException e) {
      return Double.NaN;
    } finally {
      if (client != null) {
        client.shutdown();
      }
    }
  }

  /** Deletes the finished and ignored jobs of a queue (how the bench leaves Redis as it found it). */
  static void purge(JobQueue q) {
    while (q.purge(Duration.ZERO, 2_000) > 0) { // small enough for the statement timeout on a loaded machine
      // until none is left
    }
  }

  Connection jdbc() throws SQLException {
    PostgresUrl url = PostgresUrl.parse(postgres);
    Connection c = DriverManager.getConnection(url.jdbcUrl(), url.properties());
    c.setAutoCommit(true);
    return c;
  }

  private void dropSchemas(List<String> schemas) {
    if (schemas.isEmpty()) {
      return;
    }
    try (Connection c = jdbc(); Statement st = c.createStatement()) {
      for (String s : schemas) {
        st.execute("DROP SCHEMA IF EXISTS " + s + " CASCADE");
      }
    } catch (SQLException e) {
      common.err().println("could not drop the bench's schemas " + schemas + ": " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------- enqueue rate and claim latency

  record Figures(String store, double enqueueRate, double claimP50, double claimP99, double finishP50,
      double finishP99) {}

  private Figures enqueueAndClaim(String storeName, StoreFactory stores, PrintWriter out) throws Exception {
    String queueName = "qbench-" + runId + "-enqueue";
    try (Store store = stores.open()) {
      JobQueue q = store.jobQueue(queueName);
      JobQueue warmup = store.jobQueue(queueName + "-warmup");
      try {
        warmUp(warmup);
        long t0 = System.nanoTime();
        for (int from = 0; from < jobs; from += enqueueBatch) {
          List<NewJob> chunk = new ArrayList<>(enqueueBatch);
          for (int i = from; i < Math.min(jobs, from + enqueueBatch); i++) {
            chunk.add(NewJob.of("t" + i));
          }
          q.enqueue(chunk);
        }
        double enqueueRate = jobs / ((System.nanoTime() - t0) / 1e9);
        int n = Math.min(claims, jobs);
        long[] claimNanos = new long[n];
        long[] finishNanos = new long[n];
        for (int i = 0; i < n; i++) {
          long a = System.nanoTime();
          List<ClaimedJob> got = q.claim("qbench-latency", 1, Duration.ofSeconds(30));
          long b = System.nanoTime();
          if (got.size() != 1) {
            throw new IllegalStateException(storeName + ": claim " + i + " got " + got.size() + " jobs");
          }
          q.finish(got.get(0).key(), got.get(0).token());
          claimNanos[i] = b - a;
          finishNanos[i] = System.nanoTime() - b;
        }
        Figures f = new Figures(storeName, enqueueRate, pct(claimNanos, 0.5), pct(claimNanos, 0.99),
            pct(finishNanos, 0.5), pct(finishNanos, 0.99));
        out.println();
        out.printf(Locale.ROOT, "%s enqueue: %,d jobs in batches of %d, one thread, no worker running: %,.0f"
            + " jobs/s%n", storeName, jobs, enqueueBatch, enqueueRate);
        out.printf(Locale.ROOT, "%s claim latency (claim of 1 from a queue of %,d runnable, one thread, %d calls):"
                + " p50 %.3f ms, p99 %.3f ms; the finish after it: p50 %.3f ms, p99 %.3f ms (after %d untimed claims and"
                + " finishes on a queue of their own that warm this JVM up)%n", storeName, jobs, n,
            f.claimP50(), f.claimP99(), f.finishP50(), f.finishP99(), n);
        out.flush();
        return f;
      } finally {
        // leave Redis as found: ignore what is left, then purge everything (the bench's PostgreSQL schema is dropped
        // at the end; its rows stay in a queue of their own meanwhile)
        if (storeName.equals("Redis")) {
          List<String> keys = new ArrayList<>(10_000);
          for (int i = 0; i < jobs; i++) {
            keys.add("t" + i);
            if (keys.size() == 10_000 || i == jobs - 1) {
              q.ignore(keys);
              keys.clear();
            }
          }
          purge(q);
          purge(warmup);
        }
      }
    }
  }

  /**
   * The workers run in processes of their own, so this JVM's enqueue, claim and finish code would be cold for the
   * timed calls: as many claims and finishes as will be timed run first, untimed, on a queue of their own (the timed
   * queue stays as fresh as before: a PostgreSQL claim walks past the index entries its queue's earlier claims left).
   */
  private void warmUp(JobQueue warmup) {
    int n = Math.min(claims, jobs);
    List<NewJob> all = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      all.add(NewJob.of("w" + i));
    }
    for (int from = 0; from < n; from += enqueueBatch) {
      warmup.enqueue(all.subList(from, Math.min(n, from + enqueueBatch)));
    }
    for (int i = 0; i < n; i++) {
      for (ClaimedJob j : warmup.claim("qbench-latency-warmup", 1, Duration.ofSeconds(30))) {
        warmup.finish(j.key(), j.token());
      }
    }
  }

  private static double pct(long[] nanos, double p) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    int i = (int) Math.min(s.length - 1, Math.ceil(p * s.length) - 1);
    return s[Math.max(0, i)] / 1e6;
  }

  // ---------------------------------------------------------------- the physical reference

  /** pgbench-style: 4 threads, each on its own connection in autocommit, UPDATE one random row of 1,000. */
  private double updateRate(List<String> schemas, PrintWriter out) throws Exception {
    String schema = "qbench_" + runId + "_ref";
    schemas.add(schema);
    int rows = 1000;
    int n = 4;
    try (Connection c = jdbc(); Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA " + schema);
      st.execute("CREATE TABLE " + schema + ".accounts (id int PRIMARY KEY, balance bigint NOT NULL)");
      st.execute("INSERT INTO " + schema + ".accounts SELECT g, 0 FROM generate_series(1, " + rows + ") g");
    }
    AtomicLong count = new AtomicLong();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(updateSeconds);
    List<Thread> ts = new ArrayList<>();
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(() -> {
        try (Connection c = jdbc();
            PreparedStatement ps = c.prepareStatement("UPDATE " + schema
                + ".accounts SET balance = balance + 1 WHERE id = ?")) {
          while (System.nanoTime() < end) {
            ps.setInt(1, 1 + ThreadLocalRandom.current().nextInt(rows));
            ps.executeUpdate();
            count.incrementAndGet();
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "qbench-update-" + i);
      t.start();
      ts.add(t);
    }
    for (Thread t : ts) {
      t.join();
    }
    if (!errors.isEmpty()) {
      throw new IllegalStateException("UPDATE reference failed", errors.get(0));
    }
    double rate = count.get() / ((System.nanoTime() - t0) / 1e9);
    out.println();
    out.printf(Locale.ROOT, "reference: single-row UPDATE of a random row of %,d, autocommit, %d threads on their own"
        + " connections, %d s: %,.0f updates/s (each a commit: the server's transaction rate for one-row writes)%n",
        rows, n, updateSeconds, rate);
    out.flush();
    return rate;
  }

  /** Opens one store client (its own connections). */
  @FunctionalInterface
  interface StoreFactory {
    Store open();
  }
}
