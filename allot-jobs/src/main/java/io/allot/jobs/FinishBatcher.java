package io.allot.jobs;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Reports finishes together (a worker's handlers', a dispatcher's endpoint results): one {@link JobQueue#finishAll}
 * call carries every finish that is waiting when it starts (at most {@code max}), so a lone finish goes out at once and
 * a busy client needs one round trip per batch instead of one per job. Callers get a future: handler threads go on
 * with the next job.
 *
 * <p>{@code threads} threads ({@code allot-jobs-<queue>-finish-<i>}) make the calls, each taking what waits when it is
 * free: with two, one {@code finishAll} is in flight while the next batch gathers and goes out on the other (a
 * worker of many short jobs); a finish is in one batch only. {@code pending} is a thread-safe queue; {@code closed}
 * is volatile; the rest is immutable.
 */
final class FinishBatcher implements AutoCloseable {
  private record Request(String key, long token, CompletableFuture<JobOutcome> result) {}

  private final JobQueue queue;
  private final int max;
  private final LinkedBlockingQueue<Request> pending = new LinkedBlockingQueue<>();
  private final List<Thread> threads = new ArrayList<>();
  /** Set by close(); a finish submitted after it is failed by its submitter (the loop may be gone). */
  private volatile boolean closed;

  FinishBatcher(JobQueue queue, int max) {
    this(queue, max, 1);
  }

  /** With {@code threads} calls in flight at most. */
  FinishBatcher(JobQueue queue, int max, int threadCount) {
    this.queue = queue;
    this.max = max;
    for (int i = 0; i < threadCount; i++) {
      Thread t = new Thread(this::loop, "allot-jobs-" + queue.name() + "-finish-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    this.threads.forEach(Thread::start);
  }

  /**
   * Finishes a job with the next batch. The future completes on the batcher's thread with the outcome, or
   * exceptionally with what the batch's call threw ({@link StoreUnavailableException}: the outcome is unknown).
   */
  CompletableFuture<JobOutcome> submit(String key, long token) {
    CompletableFuture<JobOutcome> f = new CompletableFuture<>();
    pending.add(new Request(key, token, f));
    if (closed) {
      failPending();
    }
    return f;
  }

  private void loop() {
    List<Request> batch = new ArrayList<>();
    while (!Thread.currentThread().isInterrupted()) {
      try {
        batch.add(pending.take());
      } catch (InterruptedException e) {
        break;
      }
      pending.drainTo(batch, max - 1);
      Map<String, Long> tokens = new LinkedHashMap<>();
      List<Request> again = new ArrayList<>();
      for (Request r : batch) {
        if (tokens.putIfAbsent(r.key(), r.token()) != null) {
          again.add(r); // the same key twice (cannot happen: one attempt per key at a time): in a batch of its own
        }
      }
      try {
        Map<String, JobOutcome> out = queue.finishAll(tokens);
        for (Request r : batch) {
          if (!again.contains(r)) {
            r.result().complete(out.getOrDefault(r.key(), JobOutcome.REJECTED));
          }
        }
      } catch (Throwable e) { // an Error too: every waiting handler must get an answer, never hang
        for (Request r : batch) {
          if (!again.contains(r)) {
            r.result().completeExceptionally(e);
          }
        }
      }
      batch.clear();
      pending.addAll(again);
    }
    failPending();
  }

  /** Fails the finishes waiting (each is taken once: by the loop, or here). */
  private void failPending() {
    Request r;
    while ((r = pending.poll()) != null) {
      r.result().completeExceptionally(new StoreUnavailableException("closed before the finish was reported"));
    }
  }

  /** Stops the thread; finishes waiting, or submitted from now on, fail with {@link StoreUnavailableException}. */
  @Override
  public void close() {
    closed = true;
    threads.forEach(Thread::interrupt);
  }
}
