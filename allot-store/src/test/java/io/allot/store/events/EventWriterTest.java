package io.allot.store.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.StoreUnavailableException;
import io.allot.store.memory.MemoryStore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EventWriterTest {

  @Test
  void writesIntoTheStore() {
    try (MemoryStore store = new MemoryStore()) {
      RecordedEvent e = EventWriter.of(store).write("p", EventKind.MEMBER_UP, "distributor", "m1", "lease began")
          .orElseThrow();
      assertThat(store.events().query(EventQuery.all()).events()).containsExactly(e);
    }
  }

  @Test
  void aFailingStoreNeverFailsTheCallerAndIsCountedUntilTheNextWarning() {
    Events failing = new Events() {
      @Override
      public RecordedEvent append(NewEvent event, EventRetention retention) {
        throw new StoreUnavailableException("store down");
      }

      @Override
      public EventPage query(EventQuery query) {
        throw new StoreUnavailableException("store down");
      }

      @Override
      public long lastId() {
        throw new StoreUnavailableException("store down");
      }
    };
    AtomicLong nanos = new AtomicLong();
    EventWriter w = new EventWriter(failing, EventRetention.DEFAULT, nanos::get);
    assertThat(w.write("p", EventKind.MEMBER_UP, "d", "m", "")).isEmpty(); // warned
    assertThat(w.lostSinceWarning()).isZero();
    assertThat(w.write("p", EventKind.MEMBER_UP, "d", "m", "")).isEmpty();
    assertThat(w.write("p", EventKind.MEMBER_UP, "d", "m", "")).isEmpty();
    assertThat(w.lostSinceWarning()).as("not warned again within the minute").isEqualTo(2);
    nanos.addAndGet(TimeUnit.MINUTES.toNanos(1));
    assertThat(w.write("p", EventKind.MEMBER_UP, "d", "m", "")).isEmpty();
    assertThat(w.lostSinceWarning()).as("warned with the count").isZero();
  }
}
