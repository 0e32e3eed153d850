package io.allot.sim.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.jobs.JobWorker;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.store.spi.Proxies;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The job simulator's worker phase (hole 3 of issue 18's third pass): a real {@link JobWorker} whose handlers block is
 * closed mid-flight with a short drain, and closing must charge no attempt and ignore no job: every job the closed
 * worker held is runnable again (todo, or failed and due) with its attempts as before the claim. Jobs have one
 * attempt, so a charged attempt shows as {@code IGNORED} or a job left processing under the closed worker's lock.
 *
 * <p>Both tests failed before {@code JobQueue.giveBack} and its use in close (IGNORED with
 * {@code java.lang.InterruptedException}; a job left PROCESSING under the closed worker's lock).
 */
class WorkerCloseTest {
  private static final Duration DRAIN = Duration.ofMillis(100);

  @AutoClose
  private final MemoryStore store = new MemoryStore();

  @Test
  void closingWithBlockedHandlersChargesNoAttempt() {
    JobQueue q = queueOf(6);
    CountDownLatch started = new CountDownLatch(2);
    JobWorker w = JobWorker.builder(q, job -> {
      started.countDown();
      new CountDownLatch(1).await(); // blocks until interrupted
    }).concurrency(2).prefetch(2).lockTtl(Duration.ofMinutes(1)).drainTimeout(DRAIN)
        .pollInterval(Duration.ofMillis(10)).build().start();
    await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0 && w.running() == 4);
    w.close();
    assertEveryJobRunnableAndUncharged(q);
  }

  @Test
  void closingDuringAClaimChargesNoAttempt() {
    JobQueue real = queueOf(4);
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch claiming = new CountDownLatch(1);
    JobQueue slow = (JobQueue) Proxy.newProxyInstance(JobQueue.class.getClassLoader(), new Class<?>[] {JobQueue.class},
        (proxy, m, args) -> {
          if (m.getName().equals("claim")) {
            claiming.countDown();
            gate.await(); // the claim is in flight while the worker closes
          }
          return Proxies.invoke(real, m, args);
        });
    JobWorker w = JobWorker.builder(slow, job -> new CountDownLatch(1).await()).concurrency(2).prefetch(0)
        .lockTtl(Duration.ofMinutes(1)).drainTimeout(DRAIN).pollInterval(Duration.ofMillis(10)).build().start();
    await().atMost(Duration.ofSeconds(10)).until(() -> claiming.getCount() == 0);
    w.close();
    gate.countDown(); // the claim now lands on a closed worker
    assertEveryJobRunnableAndUncharged(real);
  }

  private JobQueue queueOf(int n) {
    JobQueue q = store.jobQueue("close-" + n);
    q.enqueue(IntStream.range(0, n).mapToObj(i -> NewJob.of("k" + i).withMaxAttempts(1)).toList());
    return q;
  }

  /** Waits (a few seconds at most) for every job to be runnable, none charged by the close. */
  private static void assertEveryJobRunnableAndUncharged(JobQueue q) {
    List<String> keys = IntStream.range(0, 6).mapToObj(i -> "k" + i).toList();
    try {
      await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(3)).until(() -> keys.stream().map(q::get).flatMap(java.util.Optional::stream)
          .allMatch(WorkerCloseTest::runnableUncharged));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // the figures below say which job and how
    }
    for (String k : keys) {
      q.get(k).ifPresent(j -> assertThat(runnableUncharged(j)).as("after close, %s: %s %d of %d attempts, locked by"
          + " %s, error '%s'", k, j.status(), j.attempts(), j.maxAttempts(), j.lockedBy(), j.lastError()).isTrue());
    }
  }

  private static boolean runnableUncharged(Job j) {
    return (j.status() == JobStatus.TODO || j.status() == JobStatus.FAILED) && j.attempts() == 0;
  }
}
