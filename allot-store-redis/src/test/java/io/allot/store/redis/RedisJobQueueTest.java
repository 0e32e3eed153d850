package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.allot.store.StoreClock;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobQueueContractTest;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.jobs.QueueStats;
import io.allot.store.memory.MemoryJobQueues;
import io.allot.testkit.TestServers;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The job-queue contract on the standalone Redis of {@link TestServers#redisUri()}: two stores as two processes
 * would have (claims through one, completions through the other), each test's queue keys deleted after it. Plus what
 * is particular to the Redis layout: one slot per queue whatever its name, delayed jobs of high priority that must
 * not stand in the way of due ones, full batches (Lua's unpack limit), and a benchmark run by hand
 * ({@code -Dallot.bench=true}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisJobQueueTest extends JobQueueContractTest {
  private static final Duration LONG = Duration.ofMinutes(5);

  /** Two stores and a raw connection on the Redis under test, closed after the class's tests. */
  @AutoClose
  final RedisClients clients = connect();
  // JUnit runs a class's lifecycle methods and tests on one thread
  private final Set<String> queues = new HashSet<>();

  /** The clients of the server (or cluster) under test; called once, as the instance is made. */
  RedisClients connect() {
    return RedisClients.connect(TestServers.redisUri());
  }

  @AfterEach
  void deleteTheQueues() {
    for (String q : queues) {
      clients.raw.del(keys(q));
    }
    queues.clear();
  }

  @Override
  protected JobQueue queue(String name) {
    JobQueue q = clients.next().jobQueue(name);
    queues.add(name);
    return q;
  }

  @Override
  protected StoreClock clock() {
    return clients.store.clock();
  }

  static String[] keys(String queue) {
    return JobKeys.SUFFIXES.stream().map(s -> RedisKeys.companion("allot:q:" + queue, s)).toArray(String[]::new);
  }

  private static String randomName() {
    return "q-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void everyQueueHasItsKeysInOneSlotAndNamesNeverShareKeys() {
    String id = randomName();
    // queue names hold letters, digits and . _ - : (JobLimits.checkQueue); ':' is Redis's usual separator
    List<String> names = List.of(id, id + ":a:b", "a:" + id, id + ":", ":" + id, "x." + id, id + "_y", "-" + id);
    Set<String> all = new HashSet<>();
    for (String name : names) {
      String[] ks = keys(name);
      int slot = SlotHash.getSlot(ks[0]);
      for (String k : ks) {
        assertThat(SlotHash.getSlot(k)).as(k).isEqualTo(slot);
        assertThat(all.add(k)).as("key %s used by two queues", k).isTrue();
      }
      JobQueue q = queue(name);
      assertThat(q.enqueue(List.of(NewJob.of("k{1}", "d"), NewJob.of("k:2")))).isEqualTo(2);
      assertThat(q.claim("w", 10, LONG)).extracting(ClaimedJob::key).containsExactly("k:2", "k{1}");
      assertThat(clients.raw.exists(ks)).as(name).isGreaterThanOrEqualTo(4);
    }
    assertThat(keys(id)[0]).isEqualTo("{allot:q:" + id + "}:jobs");
  }

  /**
   * A queue written by a release before the word "job" kept its jobs' hash under {@code :tasks} (the other keys had
   * today's names): the first call renames it, and the queue goes on with every job, its status and data.
   */
  @Test
  void aQueueWhoseJobsHashHasItsNameOfBeforeTheRenameKeepsItsJobs() {
    String name = randomName();
    JobQueue q = queue(name);
    q.enqueue(List.of(NewJob.of("a", "data of a"), NewJob.of("b")));
    assertThat(q.claim("w", 1, LONG)).extracting(ClaimedJob::key).containsExactly("a");
    String[] ks = keys(name);
    clients.raw.rename(ks[0], ks[ks.length - 1]); // the layout of the release before
    assertThat(ks[ks.length - 1]).isEqualTo("{allot:q:" + name + "}:tasks");

    assertThat(q.get("a").orElseThrow()).extracting(Job::status, Job::data)
        .containsExactly(JobStatus.PROCESSING, "data of a");
    assertThat(clients.raw.exists(ks[ks.length - 1])).as("the old key is gone").isZero();
    assertThat(q.claim("w", 10, LONG)).extracting(ClaimedJob::key).containsExactly("b");
    assertThat(q.stats(0).count(JobStatus.PROCESSING)).isEqualTo(2);
  }

  @Test
  void delayedJobsOfHighPriorityDoNotStandInTheWayOfDueOnes() {
    JobQueue q = queue(randomName());
    List<NewJob> later = IntStream.range(0, 500)
        .mapToObj(i -> NewJob.of("later" + i).withPriority(10).withDelay(Duration.ofHours(1))).toList();
    q.enqueue(later);
    q.enqueue(List.of(NewJob.of("low").withPriority(-3), NewJob.of("mid").withPriority(2)));
    assertThat(q.claim("w", 1, LONG)).extracting(ClaimedJob::key).containsExactly("mid");
    assertThat(q.claim("w", 10, LONG)).extracting(ClaimedJob::key).containsExactly("low");
    assertThat(q.claim("w", 10, LONG)).isEmpty();
    QueueStats s = q.stats(0);
    assertThat(s.count(JobStatus.TODO)).isEqualTo(500);
    assertThat(s.count(JobStatus.PROCESSING)).isEqualTo(2);
  }

  @Test
  void aFullBatchIsOneCallEachWay() {
    JobQueue q = queue(randomName());
    List<NewJob> ts = IntStream.range(0, JobLimits.MAX_BATCH).mapToObj(i -> NewJob.of("k" + i, "d" + i)).toList();
    assertThat(q.enqueue(ts)).isEqualTo(JobLimits.MAX_BATCH);
    assertThat(q.enqueue(ts)).isZero();
    List<ClaimedJob> cs = q.claim("w", JobLimits.MAX_BATCH, LONG);
    assertThat(cs).hasSize(JobLimits.MAX_BATCH);
    assertThat(cs.stream().map(ClaimedJob::key).distinct().count()).isEqualTo(JobLimits.MAX_BATCH);
    assertThat(q.retry(cs.stream().map(ClaimedJob::key).toList())).isEqualTo(JobLimits.MAX_BATCH);
    assertThat(q.ignore(cs.stream().map(ClaimedJob::key).toList())).isEqualTo(JobLimits.MAX_BATCH);
    assertThat(q.purge(Duration.ZERO, JobLimits.MAX_BATCH)).isEqualTo(JobLimits.MAX_BATCH);
    assertThat(q.stats(0).total()).isZero();
    assertThat(clients.raw.exists(keys(q.name()))).as("only the counts hash is left").isEqualTo(1);
  }

  @Test
  void anExpiredLockRunsAgainInOrderOfItsExpiryAndItsJobKeepsItsData() {
    JobQueue q = queue(randomName());
    q.enqueue(NewJob.of("a", "data-a").withPriority(1));
    ClaimedJob a = q.claim("w", 1, Duration.ofMillis(50)).get(0);
    q.enqueue(NewJob.of("b", "data-b"));
    long runnableAt = a.lockedUntilMillis() + clients.store.safety().clockMargin().toMillis();
    await().atMost(PATIENCE).until(() -> clock().timeMillis() > runnableAt);
    // a (priority 1) is runnable again and comes before b (priority 0)
    List<ClaimedJob> again = q.claim("w2", 1, LONG);
    assertThat(again).extracting(ClaimedJob::key, ClaimedJob::data, ClaimedJob::attempt)
        .containsExactly(tuple("a", "data-a", 2));
    assertThat(q.extend("a", again.get(0).token(), LONG)).isTrue();
    assertThat(q.fail("a", again.get(0).token(), "", Duration.ZERO)).isEqualTo(JobOutcome.RETRY_SCHEDULED);
    assertThat(q.get("a").orElseThrow().lastError()).isEmpty();
    assertThat(q.claim("w", 5, LONG)).extracting(ClaimedJob::key).containsExactly("a", "b");
    assertThat(q.stats(0).count(JobStatus.PROCESSING)).isEqualTo(2);
  }

  /**
   * A claim moves an expired lock into ready without taking it (a job of higher priority comes first); the old holder
   * then finishes the job: finishAll takes it out of ready too (jobs/finish_all), so no entry is left behind, and the
   * next claim finds nothing.
   */
  @Test
  void aHolderWhoseExpiredLockWasMovedIntoReadyFinishesItAndLeavesNoEntryBehind() {
    JobQueue q = queue(randomName());
    q.enqueue(NewJob.of("low").withPriority(-1));
    ClaimedJob old = q.claim("slow", 1, Duration.ofMillis(50)).get(0);
    q.enqueue(NewJob.of("high").withPriority(5));
    long runnableAt = old.lockedUntilMillis() + clients.store.safety().clockMargin().toMillis();
    await().atMost(PATIENCE).until(() -> clock().timeMillis() > runnableAt);
    ClaimedJob high = q.claim("w", 1, LONG).get(0);
    assertThat(high.key()).isEqualTo("high");
    String[] k = keys(q.name());
    assertThat(clients.raw.zcard(k[3])).as("ready holds the expired lock").isEqualTo(1);
    assertThat(q.finishAll(Map.of("low", old.token(), "high", high.token())))
        .containsExactlyInAnyOrderEntriesOf(Map.of("low", JobOutcome.FINISHED, "high", JobOutcome.FINISHED));
    assertThat(clients.raw.zcard(k[3])).as("ready").isZero();
    assertThat(clients.raw.zcard(k[5])).as("locks").isZero();
    assertThat(clients.raw.zcard(k[8])).as("done").isEqualTo(2);
    assertThat(q.claim("w", 5, LONG)).isEmpty();
    assertThat(q.stats(0).count(JobStatus.FINISHED)).isEqualTo(2);
  }

  /**
   * Random sequences of every operation give the same answers and leave the same jobs as the memory store's queue
   * (the reference), seed by seed. Locks are long and backoffs zero, so both clocks order the events alike.
   */
  @Test
  void behavesAsTheMemoryReferenceUnderRandomOperations() {
    for (long seed = 1; seed <= 6; seed++) {
      Random rnd = new Random(seed);
      AtomicLong micros = new AtomicLong(System.currentTimeMillis() * 1000);
      JobQueue mem = new MemoryJobQueues(() -> micros.addAndGet(1000), Duration.ofMillis(200)).queue("model");
      JobQueue red = queue(randomName());
      List<String> keys = IntStream.range(0, 16).mapToObj(i -> "k" + i).toList();
      Map<String, List<long[]>> tokens = new HashMap<>(); // key -> (memory token, redis token), oldest first
      for (int step = 0; step < 250; step++) {
        String at = "seed " + seed + " step " + step;
        String key = keys.get(rnd.nextInt(keys.size()));
        List<long[]> held = tokens.getOrDefault(key, List.of());
        long[] tok = held.isEmpty() ? new long[] {1, 1} : held.get(rnd.nextInt(4) == 0 ? 0 : held.size() - 1);
        switch (rnd.nextInt(9)) {
          case 0, 1 -> {
            List<NewJob> ts = new ArrayList<>();
            for (String k : keys) {
              if (rnd.nextInt(4) == 0) {
                ts.add(NewJob.of(k, "d-" + k + "-" + step).withPriority(rnd.nextInt(5) - 2)
                    .withMaxAttempts(1 + rnd.nextInt(3)));
              }
            }
            assertThat(red.enqueue(ts)).as(at).isEqualTo(mem.enqueue(ts));
          }
          case 2, 3 -> {
            int max = 1 + rnd.nextInt(5);
            List<ClaimedJob> m = mem.claim("w", max, LONG);
            List<ClaimedJob> r = red.claim("w", max, LONG);
            assertThat(r).as(at).extracting(ClaimedJob::key, ClaimedJob::data, ClaimedJob::attempt,
                ClaimedJob::maxAttempts).containsExactlyElementsOf(m.stream()
                .map(c -> tuple(c.key(), c.data(), c.attempt(), c.maxAttempts())).toList());
            for (int i = 0; i < m.size(); i++) {
              tokens.computeIfAbsent(m.get(i).key(), k -> new ArrayList<>())
                  .add(new long[] {m.get(i).token(), r.get(i).token()});
            }
          }
          case 4 -> {
            if (rnd.nextBoolean()) {
              assertThat(red.finish(key, tok[1])).as(at).isEqualTo(mem.finish(key, tok[0]));
            } else {
              // a batch of held, stale and never-claimed keys, as a worker's finishAll sends
              Map<String, Long> m = new java.util.LinkedHashMap<>();
              Map<String, Long> r = new java.util.LinkedHashMap<>();
              for (String k : keys) {
                List<long[]> h = tokens.getOrDefault(k, List.of());
                if (rnd.nextInt(3) == 0) {
                  long[] t = h.isEmpty() ? new long[] {1, 1} : h.get(rnd.nextInt(h.size()));
                  m.put(k, t[0]);
                  r.put(k, t[1]);
                }
              }
              if (!m.isEmpty()) {
                assertThat(red.finishAll(r)).as(at).isEqualTo(mem.finishAll(m));
              }
            }
          }
          case 5 -> assertThat(red.fail(key, tok[1], "err " + step, Duration.ZERO)).as(at)
              .isEqualTo(mem.fail(key, tok[0], "err " + step, Duration.ZERO));
          case 6 -> {
            if (rnd.nextBoolean()) {
              assertThat(red.extend(key, tok[1], LONG)).as(at).isEqualTo(mem.extend(key, tok[0], LONG));
            } else {
              assertThat(red.giveBack("w", Map.of(key, tok[1]))).as(at).isEqualTo(mem.giveBack("w", Map.of(key, tok[0])));
            }
          }
          case 7 -> {
            List<String> some = keys.stream().filter(k -> rnd.nextInt(5) == 0).toList();
            if (rnd.nextBoolean()) {
              assertThat(red.retry(some)).as(at).isEqualTo(mem.retry(some));
            } else {
              assertThat(red.ignore(some)).as(at).isEqualTo(mem.ignore(some));
            }
          }
          default -> {
            if (rnd.nextInt(4) == 0) {
              assertThat(red.purge(Duration.ZERO, 100)).as(at).isEqualTo(mem.purge(Duration.ZERO, 100));
            }
          }
        }
        QueueStats ms = mem.stats(100);
        QueueStats rs = red.stats(100);
        assertThat(rs.counts()).as(at).isEqualTo(ms.counts());
        assertIndexesFollowTheCounts(red.name(), rs, at);
        assertThat(rs.oldestTodoMillis().isPresent()).as(at).isEqualTo(ms.oldestTodoMillis().isPresent());
        assertThat(rs.failures()).as(at).extracting(Job::key)
            .containsExactlyInAnyOrderElementsOf(ms.failures().stream().map(Job::key).toList());
        for (String k : keys) {
          Optional<Job> m = mem.get(k);
          Optional<Job> r = red.get(k);
          assertThat(r.isPresent()).as(at + " " + k).isEqualTo(m.isPresent());
          m.ifPresent(t -> assertThat(r.orElseThrow()).as(at + " " + k)
              .extracting(Job::status, Job::data, Job::priority, Job::attempts, Job::maxAttempts,
                  Job::lockedBy, Job::lastError)
              .containsExactly(t.status(), t.data(), t.priority(), t.attempts(), t.maxAttempts(), t.lockedBy(),
                  t.lastError()));
        }
      }
    }
  }

  /**
   * The indexes of queue {@code name} hold as many members as the counts say (locks never expire in the model test,
   * so no PROCESSING job is in ready): an index entry a script forgot to add or remove shows here.
   */
  private void assertIndexesFollowTheCounts(String name, QueueStats stats, String at) {
    String[] k = keys(name);
    long todo = stats.counts().getOrDefault(JobStatus.TODO, 0L);
    long failed = stats.counts().getOrDefault(JobStatus.FAILED, 0L);
    long processing = stats.counts().getOrDefault(JobStatus.PROCESSING, 0L);
    long finished = stats.counts().getOrDefault(JobStatus.FINISHED, 0L);
    long ignored = stats.counts().getOrDefault(JobStatus.IGNORED, 0L);
    assertThat(clients.raw.hlen(k[0])).as(at + ": jobs").isEqualTo(todo + failed + processing + finished + ignored);
    assertThat(clients.raw.zcard(k[3]) + clients.raw.zcard(k[4])).as(at + ": ready + delayed").isEqualTo(todo + failed);
    assertThat(clients.raw.zcard(k[5])).as(at + ": locks").isEqualTo(processing);
    assertThat(clients.raw.zcard(k[6])).as(at + ": todo").isEqualTo(todo);
    assertThat(clients.raw.zcard(k[7])).as(at + ": failures").isEqualTo(failed + ignored);
    assertThat(clients.raw.zcard(k[8])).as(at + ": done").isEqualTo(finished + ignored);
  }

  /**
   * Claim and finish throughput, and batched enqueue, printed (not asserted). Run by hand:
   * {@code ./mvnw -B -o test -pl allot-store-redis -Dtest='RedisJobQueueTest#benchmark' -Dallot.bench=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "allot.bench", matches = "true")
  void benchmark() throws Exception {
    int total = Integer.getInteger("allot.bench.jobs", 200_000);
    int threads = Integer.getInteger("allot.bench.threads", 8);
    int claimBatch = Integer.getInteger("allot.bench.claim", 100);
    int enqueueBatch = 1000;
    for (int round = 0; round < 4; round++) {
      boolean batchedFinish = round % 2 == 1;
      double roundTrips = roundTripsPerSecond(threads, total / 2);
      JobQueue q = queue(randomName());
      String data = "{\"to\":\"someone@example.org\",\"n\":12345}";
      long memoryBefore = usedMemory();
      long scriptsBefore = scriptMicros();
      long t0 = System.nanoTime();
      for (int i = 0; i < total; i += enqueueBatch) {
        int from = i;
        q.enqueue(IntStream.range(from, Math.min(total, from + enqueueBatch))
            .mapToObj(k -> NewJob.of("job-" + k, data)).toList());
      }
      double enqueueSecs = (System.nanoTime() - t0) / 1e9;
      long enqueueServerMicros = scriptMicros() - scriptsBefore;
      long memoryQueued = usedMemory() - memoryBefore;
      long runScriptsBefore = scriptMicros();
      AtomicLong done = new AtomicLong();
      ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      long t1 = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int w = 0; w < threads; w++) {
        JobQueue mine = (w % 2 == 0 ? clients.store : clients.peer).jobQueue(q.name());
        String worker = "bench-" + w;
        fs.add(pool.submit(() -> {
          List<ClaimedJob> got;
          while (!(got = mine.claim(worker, claimBatch, LONG)).isEmpty()) {
            if (batchedFinish) {
              java.util.Map<String, Long> report = new java.util.LinkedHashMap<>();
              got.forEach(c -> report.put(c.key(), c.token()));
              mine.finishAll(report).forEach((k, o) -> {
                if (o != JobOutcome.FINISHED) {
                  errors.add(k);
                }
              });
            } else {
              for (ClaimedJob c : got) {
                if (mine.finish(c.key(), c.token()) != JobOutcome.FINISHED) {
                  errors.add(c.key());
                }
              }
            }
            done.addAndGet(got.size());
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      double runSecs = (System.nanoTime() - t1) / 1e9;
      long runServerMicros = scriptMicros() - runScriptsBefore;
      long memoryFinished = usedMemory() - memoryBefore;
      pool.shutdown();
      assertThat(errors).isEmpty();
      assertThat(done.get()).isEqualTo(total);
      System.out.printf(Locale.ROOT, "job-queue bench on %s (round %d): enqueue %d in batches of %d: %.0f jobs/s;"
          + " claim %d + %s, %d threads: %.0f jobs/s; baseline TIME round trips, %d threads: %.0f/s"
          + " (claim+finish = %.2f of it)%n", clients.store.describe(), round + 1, total, enqueueBatch, total / enqueueSecs,
          claimBatch, batchedFinish ? "finishAll" : "finish each", threads,
          total / runSecs, threads, roundTrips, total / runSecs / roundTrips);
      System.out.printf(Locale.ROOT, "  Redis time in scripts per job: enqueue %.1f µs, claim+finish %.1f µs;"
          + " Redis memory per job (%d-byte keys and data): queued %d bytes, finished %d bytes%n",
          (double) enqueueServerMicros / total, (double) runServerMicros / total, "job-100000".length() + data.length(),
          memoryQueued / total, memoryFinished / total);
      clients.raw.del(keys(q.name()));
    }
  }

  /** The microseconds Redis spent in EVAL and EVALSHA so far (standalone: the server; Cluster: the seed node). */
  private long scriptMicros() {
    long sum = 0;
    for (String line : clients.raw.info("commandstats").split("\\R")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        for (String part : line.substring(line.indexOf(':') + 1).split(",")) {
          if (part.startsWith("usec=")) {
            sum += Long.parseLong(part.substring(5));
          }
        }
      }
    }
    return sum;
  }

  /** Redis's {@code used_memory} (standalone: the server; Cluster: the seed node). */
  private long usedMemory() {
    return clients.raw.info("memory").lines().filter(l -> l.startsWith("used_memory:"))
        .mapToLong(l -> Long.parseLong(l.substring(12).trim())).findFirst().orElse(0);
  }

  /** The baseline: {@code n} plain {@code TIME} round trips over {@code threads} threads and both stores, per s. */
  private double roundTripsPerSecond(int threads, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long t0 = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int w = 0; w < threads; w++) {
        StoreClock c = (w % 2 == 0 ? clients.store : clients.peer).clock();
        fs.add(pool.submit(() -> {
          for (int i = 0; i < n / threads; i++) {
            c.timeMillis();
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      return (n / threads * threads) / ((System.nanoTime() - t0) / 1e9);
    } finally {
      pool.shutdown();
    }
  }
}
