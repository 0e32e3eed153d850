package io.allot.sample;

import io.allot.testkit.TestServers;
import java.util.UUID;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sample on the test Redis, under pool, hash and queue names of its own. */
@SpringBootTest(properties = "allot.worker.host=127.0.0.1")
class SampleOnRedisTest extends SampleScenario {
  private static final String ID = UUID.randomUUID().toString().substring(0, 8);

  @DynamicPropertySource
  static void redis(DynamicPropertyRegistry r) {
    r.add("allot.store", TestServers::redisUri);
    r.add("allot.worker.pool", () -> "sample-units-" + ID);
    r.add("allot.tasks.pool", () -> "sample-tasks-" + ID);
    r.add("allot.worker.distribution-namespace", () -> "sample-table-" + ID);
    r.add("allot.jobs.mailer.queue", () -> "sample-emails-" + ID);
  }
}
