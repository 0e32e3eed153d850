package io.allot.sim.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.jobs.JobQueue;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.redis.RedisStore;
import io.allot.store.redis.RedisStoreConfig;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The job simulator's ops on the real stores with truly concurrent clients ({@link JobRounds}): the standard mix, a
 * purge race (hole 1 of issue 18's third pass: a purge deleted a job retried meanwhile) and a rate race (hole 2: the
 * PostgreSQL rate limit under concurrent claimers). Each run has its own schema or queue name, and several store
 * clients as separate processes would have. {@code -Dallot.jobsim.seed=S} sets the clients' draws.
 */
class JobRoundsTest {
  private static final long SEED = Long.getLong("allot.jobsim.seed", 1L);

  /** The standard mix without what only a sequential run can judge (a rate changed mid-run) or needs (long thinks). */
  static JobMix concurrentStandard() {
    return JobMix.standard().with(JobOp.LIMIT_RATE, 0).with(JobOp.ADVANCE, 0);
  }

  @Test
  void postgresKeepsEveryInvariant() {
    onPostgres(8, concurrentStandard(), 0, 10, Duration.ofSeconds(2));
    onPostgres(16, JobMix.rateRace(), 2_000, 20, Duration.ofSeconds(3));
  }

  /**
   * Found by this race: a purge deleted a job that was retried by hand, claimed and finished again while the purge
   * ran (its outer WHERE re-checked the status, not the age: {@code no job lost: j195 is gone, but no purge could
   * delete it}, 2 runs of 3); fixed in PgJobQueue (the age is tested in the outer WHERE too; pinned by
   * {@code PostgresJobQueueTest.aPurgeWaitingOnAJobFinishedAgainMeanwhileLeavesItAlone}).
   */
  @Test
  void postgresPurgeRace() {
    onPostgres(8, JobMix.purgeRace(), 300, 10, Duration.ofSeconds(3));
  }

  @Test
  void redisKeepsEveryInvariant() {
    onRedis(8, concurrentStandard(), 0, 10, Duration.ofSeconds(2));
    onRedis(8, JobMix.purgeRace(), 300, 10, Duration.ofSeconds(2));
    onRedis(16, JobMix.rateRace(), 2_000, 20, Duration.ofSeconds(2));
  }

  static JobSimReport onPostgres(int threads, JobMix mix, int backlog, int ops, Duration d) {
    try (PostgresSchema schema = PostgresSchema.create("allot_jobsim")) {
      List<Store> stores = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          stores.add(PostgresStore.connect(schema.uri()));
        }
        return runOn(stores, "sim", threads, mix, backlog, ops, d);
      } finally {
        stores.forEach(Store::close);
      }
    }
  }

  static JobSimReport onRedis(int threads, JobMix mix, int backlog, int ops, Duration d) {
    String name = "jobsim-" + UUID.randomUUID().toString().substring(0, 8);
    List<Store> stores = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        stores.add(RedisStore.connect(RedisStoreConfig.fromUri(TestServers.redisUri())));
      }
      return runOn(stores, name, threads, mix, backlog, ops, d);
    } finally {
      if (!stores.isEmpty()) { // the queue's jobs away: every job final, purged, the limit removed
        JobQueue q = stores.get(0).jobQueue(name);
        List<String> keys = new ArrayList<>();
        for (int i = 1; q.get("j" + i).isPresent() || i < 10; i++) {
          keys.add("j" + i);
        }
        for (int i = 0; i < keys.size(); i += 500) {
          q.ignore(keys.subList(i, Math.min(keys.size(), i + 500)));
        }
        while (q.purge(Duration.ZERO, 1_000) > 0) {
          // purged a batch
        }
        q.limitRate(0);
      }
      stores.forEach(Store::close);
    }
  }

  private static JobSimReport runOn(List<Store> stores, String queue, int threads, JobMix mix, int backlog, int ops,
      Duration d) {
    List<JobQueue> queues = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      queues.add(stores.get(i % stores.size()).jobQueue(queue));
    }
    Supplier<String> where = () -> stores.get(0).getClass().getSimpleName();
    JobSimReport r = JobRounds.run(SEED, queues, mix, backlog, ops, d);
    System.out.println(where.get() + ": " + r.summary());
    assertThat(r.ok()).as("%s: %s", where.get(), r.details()).isTrue();
    return r;
  }
}
