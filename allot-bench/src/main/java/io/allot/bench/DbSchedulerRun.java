package io.allot.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.allot.store.postgres.PostgresUrl;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The db-scheduler side of {@code bench jobs}: the same no-op jobs, end to end, through db-scheduler 16.7.1 with its
 * README's high-throughput settings, on the bench's PostgreSQL.
 */
final class DbSchedulerRun {
  /** pollUsingLockAndFetch's bounds, its README's high-throughput setting: fetch when below 1 x threads, up to 4 x. */
  static final double LOWER = 1.0;
  static final double UPPER = 4.0;

  private final JobBench bench;

  /** The run of {@code bench}: its options and run id. */
  DbSchedulerRun(JobBench bench) {
    this.bench = bench;
  }

  /**
   * Runs every job of the bench through db-scheduler in schema {@code schema} (created here, dropped by the bench):
   * P processes ({@link JobWorkerProcess}, each a JVM with its own HikariCP pool and {@link Scheduler}) of T threads;
   * prints the run's figures.
   */
  JobBench.Run run(String schema, PrintWriter out) throws Exception {
    String table = schema + ".scheduled_tasks";
    try (Connection c = bench.jdbc(); Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA " + schema);
      // db-scheduler's table as its repository gives it (db-scheduler/src/test/resources/postgresql_tables.sql)
      st.execute("CREATE TABLE " + table + " (task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,"
          + " execution_time timestamp with time zone NOT NULL, picked boolean NOT NULL, picked_by text,"
          + " last_success timestamp with time zone, last_failure timestamp with time zone, consecutive_failures int,"
          + " last_heartbeat timestamp with time zone, version bigint NOT NULL, priority smallint,"
          + " PRIMARY KEY (task_name, task_instance))");
      st.execute("CREATE INDEX execution_time_idx ON " + table + " (execution_time)");
      st.execute("CREATE INDEX last_heartbeat_idx ON " + table + " (last_heartbeat)");
      st.execute("CREATE INDEX priority_execution_time_idx ON " + table + " (priority DESC, execution_time ASC)");
    }
    OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((instance, ctx) -> { });
    List<List<String>> args = new ArrayList<>();
    for (int p = 0; p < bench.processes; p++) {
      args.add(List.of("dbs", bench.postgres, table, "qbench-" + bench.runId + "-p" + p,
          Integer.toString(bench.threads), Integer.toString(bench.pollMillis)));
    }
    try (HikariDataSource producerPool = pool("qbench-dbs-producer");
        WorkerProcesses workers = new WorkerProcesses(args)) {
      SchedulerClient client = SchedulerClient.Builder.create(producerPool, noop).tableName(table).build();
      long t0 = System.nanoTime();
      Instant now = Instant.now();
      for (int from = 0; from < bench.jobs; from += bench.enqueueBatch) {
        List<TaskInstance<?>> chunk = new ArrayList<>(bench.enqueueBatch);
        for (int i = from; i < Math.min(bench.jobs, from + bench.enqueueBatch); i++) {
          chunk.add(noop.instance("t" + i));
        }
        client.scheduleBatch(chunk, now);
      }
      long enqueued = System.nanoTime();
      if (!workers.awaitDone(bench.jobs, bench.timeoutSeconds())) {
        throw new IllegalStateException("db-scheduler: only " + workers.done() + " of " + bench.jobs
            + " jobs finished in " + bench.timeoutSeconds() + " s");
      }
      long t1 = System.nanoTime();
      long failures = 0;
      for (String line : workers.stop()) {
        failures += Long.parseLong(line.split(" ")[0]);
      }
      long left;
      try (Connection c = bench.jdbc(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
        rs.next();
        left = rs.getLong(1);
      }
      // per job: its share of one lock-and-fetch statement (up to upper * threads jobs) and one DELETE
      JobBench.Run run = new JobBench.Run("db-scheduler", bench.jobs, (enqueued - t0) / 1e9, (t1 - t0) / 1e9, Double.NaN);
      out.println();
      out.printf(Locale.ROOT, "db-scheduler 16.7.1: %,d jobs in %.2f s = %,.0f jobs/s end to end (scheduleBatch of"
              + " all took %.2f s, concurrent with the schedulers); %d rows left in its table, %d failures%n", bench.jobs,
          run.totalSeconds(), run.rate(), run.enqueueSeconds(), left, failures);
      out.printf(Locale.ROOT, "  scheduler settings (its README's high-throughput advice): pollUsingLockAndFetch(%.1f,"
              + " %.1f) (select for update skip locked, fetches up to %d per poll), threads %d, pollingInterval %d ms,"
              + " OneTimeTask (row deleted on completion), HikariCP pool %d per process, table and indexes of its"
              + " postgresql_tables.sql; %d scheduler processes (JVMs of their own)%n", LOWER, UPPER,
          (int) (UPPER * bench.threads), bench.threads, bench.pollMillis, bench.threads + 2, bench.processes);
      out.flush();
      return run;
    }
  }

  private HikariDataSource pool(String name) {
    PostgresUrl url = PostgresUrl.parse(bench.postgres);
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url.jdbcUrl());
    hc.setDataSourceProperties(url.properties());
    hc.setMaximumPoolSize(bench.threads + 2);
    hc.setPoolName(name);
    return new HikariDataSource(hc);
  }
}
