package io.allot.bench;

import io.allot.cli.StoreOption;
import io.allot.store.Store;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** The what-if section of {@code bench jobs}: store-level claim and finish loops, no worker. */
final class JobWhatIf {
  private final JobBench bench;

  /** The loops of {@code bench}: its options and run id. */
  JobWhatIf(JobBench bench) {
    this.bench = bench;
  }

  /**
   * What bigger claims and a batched finish give, without the worker: P x T threads (each "process" with its own
   * store client) loop claim(b), then finish each job, or all b in one {@link JobQueue#finishAll} call.
   */
  /** The loops' lines, and the best rate of each store (jobs/s). */
  record Result(List<String> lines, java.util.Map<String, Double> best) {}

  /** Runs the loops on PostgreSQL in {@code schema} (null: not on PostgreSQL) and, if {@code withRedis}, on Redis. */
  Result run(String schema, boolean withRedis, PrintWriter out) throws Exception {
    List<String> lines = new ArrayList<>();
    java.util.Map<String, Double> best = new java.util.TreeMap<>();
    out.println();
    out.printf(Locale.ROOT, "what-if (no worker: %d threads loop claim(b) then finish; %,d jobs each):%n",
        bench.processes * bench.threads, bench.whatIfJobs);
    int[][] cases = {{bench.threads, 0}, {4 * bench.threads, 0}, {4 * bench.threads, 1}, {64, 1}};
    List<String> storeNames = new ArrayList<>();
    if (schema != null) {
      storeNames.add("PostgreSQL");
    }
    if (withRedis) {
      storeNames.add("Redis");
    }
    for (String storeName : storeNames) {
      JobBench.StoreFactory stores = storeName.equals("Redis") ? () -> StoreOption.openUri(bench.redis) : () -> bench.pgStore(schema);
      for (int[] c : cases) {
        double rate = storeLoop(stores, storeName.equals("Redis"), c[0], c[1] == 1);
        String line = String.format(Locale.ROOT, "%s claim(%d) + %s: %,.0f jobs/s (%.2f store calls/job)",
            storeName, c[0], c[1] == 1 ? "one finishAll per claim" : "one finish per job", rate,
            c[1] == 1 ? 2.0 / c[0] : 1 + 1.0 / c[0]);
        out.println("  " + line);
        out.flush();
        lines.add(line);
        best.merge(storeName, rate, Math::max);
      }
    }
    return new Result(lines, best);
  }

  private double storeLoop(JobBench.StoreFactory stores, boolean redis, int claimBatch, boolean batchedFinish)
      throws Exception {
    String queueName = "qbench-" + bench.runId + "-whatif-" + claimBatch + (batchedFinish ? "b" : "");
    List<Store> opened = new ArrayList<>();
    try {
      for (int p = 0; p < bench.processes; p++) {
        opened.add(stores.open());
      }
      JobQueue producer = opened.get(0).jobQueue(queueName);
      for (int from = 0; from < bench.whatIfJobs; from += bench.enqueueBatch) {
        List<NewJob> chunk = new ArrayList<>(bench.enqueueBatch);
        for (int i = from; i < Math.min(bench.whatIfJobs, from + bench.enqueueBatch); i++) {
          chunk.add(NewJob.of("t" + i));
        }
        producer.enqueue(chunk);
      }
      AtomicLong finished = new AtomicLong();
      List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
      List<Thread> ts = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int p = 0; p < bench.processes; p++) {
        JobQueue q = opened.get(p).jobQueue(queueName);
        for (int i = 0; i < bench.threads; i++) {
          String worker = "qbench-whatif-p" + p + "-" + i;
          Thread t = new Thread(() -> {
            try {
              while (true) {
                List<ClaimedJob> got = q.claim(worker, claimBatch, Duration.ofSeconds(30));
                if (got.isEmpty()) {
                  return;
                }
                if (batchedFinish) {
                  java.util.Map<String, Long> tokens = new java.util.LinkedHashMap<>();
                  got.forEach(job -> tokens.put(job.key(), job.token()));
                  finished.addAndGet(q.finishAll(tokens).values().stream()
                      .filter(o -> o == JobOutcome.FINISHED).count());
                } else {
                  for (ClaimedJob job : got) {
                    if (q.finish(job.key(), job.token()) == JobOutcome.FINISHED) {
                      finished.incrementAndGet();
                    }
                  }
                }
              }
            } catch (Throwable e) {
              errors.add(e);
            }
          }, worker);
          t.start();
          ts.add(t);
        }
      }
      for (Thread t : ts) {
        t.join();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!errors.isEmpty()) {
        throw new IllegalStateException("what-if loop failed", errors.get(0));
      }
      if (finished.get() != bench.whatIfJobs) {
        throw new IllegalStateException("what-if loop finished " + finished.get() + " of " + bench.whatIfJobs);
      }
      if (redis) {
        JobBench.purge(producer); // Redis: leave it as found (the PostgreSQL schema is dropped at the end)
      }
      return bench.whatIfJobs / seconds;
    } finally {
      opened.forEach(Store::close);
    }
  }
}
