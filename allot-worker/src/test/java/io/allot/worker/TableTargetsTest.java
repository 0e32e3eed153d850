package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Subscription;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TableTargetsTest extends WorkerTestBase {

  @Test
  void readsTheMembersFieldAndAnnouncesEveryPublication() {
    TableTargets targets = new TableTargets(mem, H);
    assertThat(targets.read("m1")).isEmpty();
    AtomicInteger changes = new AtomicInteger();
    Subscription sub = closeLater(targets.watch(changes::incrementAndGet));

    table.publish("m1", "u1,u2,,u3", "m2", "u4");

    assertThat(targets.read("m1")).containsExactly("u1", "u2", "u3");
    assertThat(targets.read("m2")).containsExactly("u4");
    assertThat(targets.read("m3")).isEmpty();
    await().until(() -> changes.get() == 1);
    sub.close();
    table.publish("m1", "u1");
    assertThat(targets.read("m1")).containsExactly("u1");
    await().during(java.time.Duration.ofMillis(200)).until(() -> changes.get() == 1);
  }
}
