package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventWriter;
import io.allot.store.events.RecordedEvent;
import io.allot.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A member's self-fences and refused claims in the event history (written later, off the caller's thread). */
class WorkerEventsTest {

  private static List<RecordedEvent> events(MemoryStore store) {
    return store.events().query(EventQuery.all().inPool("p")).events();
  }

  @Test
  void aSelfFenceAndTheFirstRefusalOfEachUnitAreRecorded() {
    try (MemoryStore store = new MemoryStore()) {
      WorkerEvents w = new WorkerEvents(EventWriter.of(store), "p");
      w.selfFenced("m1", "no successful lease renewal for 1500 ms", 3);
      w.claims("m1", List.of("u1", "u2"), Map.of("u2", 7L));
      w.claims("m1", List.of("u1"), Map.of()); // the same streak: not again
      w.claims("m1", List.of("u1"), Map.of("u1", 9L)); // granted: the streak ends
      w.claims("m1", List.of("u1", "u3"), Map.of());
      await().atMost(Duration.ofSeconds(20)).until(() -> events(store).size() == 3);
      List<RecordedEvent> e = events(store);
      assertThat(e).extracting(RecordedEvent::kind)
          .containsExactly(EventKind.SELF_FENCED, EventKind.CLAIM_REFUSED, EventKind.CLAIM_REFUSED);
      assertThat(e).allMatch(x -> x.actor().equals("m1"));
      assertThat(e.get(0).detail()).isEqualTo("no successful lease renewal for 1500 ms; 3 units stopped");
      assertThat(e.get(1).subject()).isEqualTo("u1");
      assertThat(e.get(2).subject()).isEqualTo("2 units");
      assertThat(e.get(2).detail()).endsWith(": u1, u3");
    }
  }
}
