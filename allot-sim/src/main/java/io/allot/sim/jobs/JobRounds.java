package io.allot.sim.jobs;

import io.allot.sim.SimReport;
import io.allot.sim.SimViolation;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The job simulator's ops against a real store with truly concurrent clients: one thread per client, each with its
 * own {@link JobQueue} view (as separate processes would have), doing {@code opsPerRound} ops per round; after each
 * round, with no call in flight, the {@link JobLedger} checks the whole queue. Real store time, so a run is not a
 * function of its seed (the seed fixes each client's draws only). The rate limit, if the mix has one, is set once
 * before the first round ({@link JobLedger}'s rate bound is judged only between two {@code limitRate} calls).
 *
 * <p>Not thread-safe: one run per instance of the call.
 */
public final class JobRounds {
  private JobRounds() {}

  /** How far a client's {@code System.nanoTime()} may be from the store's clock when a purge's age is judged. */
  static final long SLACK_NANOS = 5_000_000L;

  /**
   * One run.
   *
   * @param queues   one queue view per client (all of the same queue)
   * @param backlog  jobs enqueued before the first round
   * @param duration the rounds stop once this much time has passed
   */
  public static JobSimReport run(long seed, List<JobQueue> queues, JobMix mix, int backlog, int opsPerRound,
      Duration duration) {
    JobLedger ledger = new JobLedger(SLACK_NANOS);
    JobClient.Shared shared = new JobClient.Shared();
    ArrayDeque<String> last = new ArrayDeque<>();
    long t0 = System.nanoTime();
    List<JobClient> clients = new ArrayList<>();
    for (int i = 0; i < queues.size(); i++) {
      clients.add(new JobClient("c" + (i + 1), queues.get(i), ledger, System::nanoTime, mix, shared));
    }
    long calls = 0;
    int round = 0;
    Optional<SimReport.Failure> failure = Optional.empty();
    ExecutorService pool = Executors.newFixedThreadPool(clients.size());
    try {
      JobQueue q = queues.get(0);
      for (int i = 0; i < backlog; i += 500) {
        List<NewJob> jobs = new ArrayList<>();
        for (int k = i; k < Math.min(backlog, i + 500); k++) {
          jobs.add(NewJob.of(shared.newKey(), "b").withMaxAttempts(3));
        }
        long s = System.nanoTime();
        q.enqueue(jobs);
        ledger.enqueued(JobLedger.maxAttempts(jobs), s);
      }
      double rate = mix.rates().get(0);
      if (rate > 0) {
        clients.get(0).limitRate(rate);
      }
      while (System.nanoTime() - t0 < duration.toNanos()) {
        round++;
        List<Callable<Integer>> work = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
          JobClient c = clients.get(i);
          Random rnd = new Random(seed * 1_000_003L + round * 131L + i);
          int r = round;
          work.add(() -> {
            int n = 0;
            for (int k = 0; k < opsPerRound; k++) {
              JobClient.Call call = c.act(rnd);
              n++;
              synchronized (last) {
                last.addLast(String.format(java.util.Locale.ROOT, "%.3f round %d %s %s",
                    (System.nanoTime() - t0) / 1e6, r, c.name(), call == null ? "store unavailable" : call));
                if (last.size() > 40) {
                  last.removeFirst();
                }
              }
            }
            return n;
          });
        }
        for (Future<Integer> f : pool.invokeAll(work)) {
          calls += f.get(2, TimeUnit.MINUTES);
        }
        ledger.checkQueue(q::get, System.nanoTime());
      }
    } catch (java.util.concurrent.ExecutionException e) {
      failure = Optional.of(failure(e.getCause(), round, t0, last));
    } catch (SimViolation | InterruptedException | java.util.concurrent.TimeoutException e) {
      failure = Optional.of(failure(e, round, t0, last));
    } finally {
      pool.shutdownNow();
    }
    return new JobSimReport(seed, mix.name() + " on " + queues.size() + " threads", calls,
        (System.nanoTime() - t0) / 1_000_000L, "", ledger.counts(), failure);
  }

  private static SimReport.Failure failure(Throwable e, int round, long t0, ArrayDeque<String> last) {
    String invariant = e instanceof SimViolation v ? v.invariant() : "crash";
    List<String> tail;
    synchronized (last) {
      tail = List.copyOf(last);
    }
    return new SimReport.Failure(invariant, e instanceof SimViolation ? e.getMessage() : e.toString(), round,
        (System.nanoTime() - t0) / 1_000_000L, tail);
  }
}
