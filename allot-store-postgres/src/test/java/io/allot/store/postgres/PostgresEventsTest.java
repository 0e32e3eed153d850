package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventRetention;
import io.allot.store.events.EventsContractTest;
import io.allot.store.events.NewEvent;
import io.allot.store.events.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The events contract on PostgreSQL (a schema of its own), two stores as two processes would have; plus events that
 * outlive the store that wrote them.
 */
class PostgresEventsTest extends EventsContractTest {
  @RegisterExtension
  static final PeerStores STORES = new PeerStores();
  private static final TestSchema SCHEMA = STORES.schema();

  @Override
  protected Store store() {
    return STORES.store();
  }

  @Override
  protected Store peer() {
    return STORES.peer();
  }

  @Test
  void eventsOutliveTheStoreThatWroteThem() {
    RecordedEvent e = store().events().append(new NewEvent(pool(), EventKind.MEMBER_DOWN, "distributor", "m1",
        "lease ended"), EventRetention.DEFAULT);
    try (PostgresStore restarted = SCHEMA.connect()) {
      assertThat(restarted.events().query(EventQuery.all().inPool(pool())).events()).containsExactly(e);
      RecordedEvent next = restarted.events().append(new NewEvent(pool(), EventKind.MEMBER_UP, "distributor", "m1",
          ""), EventRetention.DEFAULT);
      assertThat(next.id()).isGreaterThan(e.id());
    }
  }
}
