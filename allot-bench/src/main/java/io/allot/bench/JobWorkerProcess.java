package io.allot.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.allot.cli.StoreOption;
import io.allot.jobs.AttemptOutcome;
import io.allot.jobs.JobWorker;
import io.allot.store.Store;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.postgres.PostgresStoreConfig;
import io.allot.store.postgres.PostgresUrl;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker process of {@code bench jobs}: an allot {@link JobWorker} (on PostgreSQL or Redis) or a db-scheduler
 * {@link Scheduler}, in a JVM of its own, running no-op jobs. Arguments: {@code allot STORE_URI SCHEMA QUEUE WORKER_ID
 * THREADS POLL_MS BATCH} (SCHEMA {@code -} on Redis; BATCH 0 = the worker's defaults) or {@code dbs POSTGRES_URI TABLE
 * NAME THREADS POLL_MS}. Prints {@code ready} once started, then {@code done N} (jobs it completed so far) whenever
 * the count changed, at most every 2 ms; when its standard input closes it stops, prints {@code stats ...} (allot: the
 * store calls its worker made, {@link CountingQueue.Totals} in order, then the CPU time the process used since
 * {@code ready}, in ns; db-scheduler: its failures) and exits.
 */
final class JobWorkerProcess {
  private JobWorkerProcess() {}

  /** The CPU time this process (JVM) has used so far, in ns (user + system, every thread). */
  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    AtomicLong done = new AtomicLong();
    AtomicLong other = new AtomicLong();
    AutoCloseable running;
    CountingQueue counted = null;
    if (args[0].equals("allot")) {
      String uri = args[1];
      String schema = args[2];
      int threads = Integer.parseInt(args[5]);
      int batch = Integer.parseInt(args[7]);
      // pool: as db-scheduler's (threads + 2); the claim loop, two finish calls and the lock extender share it
      Store store = uri.startsWith("postgres")
          ? PostgresStore.connect(PostgresStoreConfig.builder(uri).schema(schema).maxPoolSize(threads + 2).build())
          : StoreOption.openUri(uri);
      counted = new CountingQueue(store.jobQueue(args[3]));
      JobWorker.Builder b = JobWorker.builder(counted, job -> { })
          .workerId(args[4])
          .concurrency(threads)
          .pollInterval(Duration.ofMillis(Integer.parseInt(args[6])))
          .listener(end -> (end.outcome() == AttemptOutcome.FINISHED ? done : other).incrementAndGet());
      if (batch > 0) {
        b.batchSize(batch).prefetch(batch);
      }
      JobWorker worker = b.build().start();
      running = () -> {
        worker.close();
        store.close();
      };
    } else {
      PostgresUrl url = PostgresUrl.parse(args[1]);
      int threads = Integer.parseInt(args[4]);
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(url.jdbcUrl());
      hc.setDataSourceProperties(url.properties());
      hc.setMaximumPoolSize(threads + 2);
      hc.setPoolName(args[3]);
      HikariDataSource ds = new HikariDataSource(hc);
      OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((instance, ctx) -> { });
      Scheduler s = Scheduler.create(ds, noop)
          .tableName(args[2])
          .schedulerName(new SchedulerName.Fixed(args[3]))
          .threads(threads)
          .pollingInterval(Duration.ofMillis(Integer.parseInt(args[5])))
          .pollUsingLockAndFetch(DbSchedulerRun.LOWER, DbSchedulerRun.UPPER)
          .shutdownMaxWait(Duration.ofSeconds(5))
          .addSchedulerListener(new AbstractSchedulerListener() {
            @Override
            public void onExecutionComplete(ExecutionComplete complete) {
              (complete.getResult() == ExecutionComplete.Result.OK ? done : other).incrementAndGet();
            }
          })
          .build();
      s.start();
      running = () -> {
        s.stop();
        ds.close();
      };
    }
    long cpuAtReady = cpuNanos();
    out.println("ready");
    out.flush();
    // the progress line every 2 ms when it changed: the parent times the run by the last job's line
    java.util.concurrent.ScheduledExecutorService progress = java.util.concurrent.Executors
        .newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "progress");
          t.setDaemon(true);
          return t;
        });
    java.util.concurrent.atomic.AtomicLong told = new java.util.concurrent.atomic.AtomicLong();
    progress.scheduleAtFixedRate(() -> {
      long n = done.get();
      if (told.getAndSet(n) != n) {
        synchronized (out) {
          out.println("done " + n);
          out.flush();
        }
      }
    }, 2, 2, java.util.concurrent.TimeUnit.MILLISECONDS);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // runs until the bench closes our standard input
    }
    progress.shutdownNow();
    progress.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    running.close();
    synchronized (out) {
      out.println("done " + done.get());
      if (counted != null) {
        CountingQueue.Totals t = CountingQueue.sum(List.of(counted));
        out.println("stats " + t.claimCalls() + " " + t.emptyClaims() + " " + t.claimed() + " " + t.claimNanos() + " "
            + t.finishCalls() + " " + t.finishNanos() + " " + t.extendCalls() + " " + t.finishedJobs() + " "
            + other.get() + " " + (cpuNanos() - cpuAtReady));
      } else {
        out.println("stats " + other.get());
      }
      out.flush();
    }
    System.exit(0);
  }
}
