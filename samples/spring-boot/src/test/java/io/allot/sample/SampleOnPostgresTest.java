package io.allot.sample;

import io.allot.testkit.PostgresSchema;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample on the test PostgreSQL, in a schema of its own, dropped once the application has stopped: {@link
 * DropSchema} is registered before Spring's extension, so its after-all runs after the context is closed.
 */
@ExtendWith(SampleOnPostgresTest.DropSchema.class)
@SpringBootTest(properties = "allot.worker.host=127.0.0.1")
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class SampleOnPostgresTest extends SampleScenario {
  private static final String ID = UUID.randomUUID().toString().substring(0, 8);
  private static final PostgresSchema SCHEMA = PostgresSchema.create("sample");

  @DynamicPropertySource
  static void postgres(DynamicPropertyRegistry r) {
    r.add("allot.store", SCHEMA::uri);
    r.add("allot.worker.pool", () -> "sample-units-" + ID);
    r.add("allot.tasks.pool", () -> "sample-tasks-" + ID);
    r.add("allot.worker.distribution-namespace", () -> "sample-table-" + ID);
    r.add("allot.jobs.mailer.queue", () -> "sample-emails-" + ID);
  }

  static final class DropSchema implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
      SCHEMA.close();
    }
  }
}
