package io.allot.store.postgres;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventPage;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventRetention;
import io.allot.store.events.Events;
import io.allot.store.events.NewEvent;
import io.allot.store.events.RecordedEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Events} on the tables {@code events} and {@code event_ids} (schema version 12). An append is one call of
 * {@code append_event} ({@code functions.sql}): the id under {@code event_ids}' row lock, the row, the trimming, in
 * one transaction. A query is one SELECT by pool (or all), id and kinds. A cheap, immutable view.
 */
record PgEvents(PgJdbc db, Statements sql) implements Events {

  /** The statements, for one schema. */
  static final class Statements {
    final String append;
    final String all;
    final String inPool;
    final String lastId;

    /** {@code s}: the quoted schema. */
    Statements(String s) {
      append = "SELECT o_id, o_at FROM " + s + ".append_event(?, ?, ?, ?, ?, ?, ?)";
      String cols = "SELECT id, at_ms, pool, kind, actor, subject, detail FROM " + s + ".events WHERE id > ? "
          + "AND (cardinality(?::text[]) = 0 OR kind = ANY(?::text[]))";
      all = cols + " ORDER BY id LIMIT ?";
      inPool = cols + " AND pool = ? ORDER BY id LIMIT ?";
      lastId = "SELECT coalesce(max(id), 0) FROM " + s + ".events";
    }
  }

  @Override
  public RecordedEvent append(NewEvent e, EventRetention retention) {
    return db.query("append an event", sql.append, rs -> {
      rs.next();
      return RecordedEvent.of(rs.getLong(1), rs.getLong(2), e);
    }, e.pool(), e.kind().wire(), e.actor(), e.subject(), e.detail(), retention.perPool(),
        retention.maxAge().toMillis());
  }

  @Override
  public long lastId() {
    return db.query("read the last event id", sql.lastId, PgJdbc.LONG);
  }

  @Override
  public EventPage query(EventQuery q) {
    String[] kinds = q.kinds().stream().map(EventKind::wire).toArray(String[]::new);
    PgJdbc.Rows<List<RecordedEvent>> rows = rs -> {
      List<RecordedEvent> out = new ArrayList<>();
      while (rs.next()) {
        out.add(new RecordedEvent(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)), rs.getString(3),
            EventKind.fromWire(rs.getString(4)), rs.getString(5), rs.getString(6), rs.getString(7)));
      }
      return out;
    };
    List<RecordedEvent> events = q.pool() == null
        ? db.query("read events", sql.all, rows, q.after(), kinds, kinds, q.limit())
        : db.query("read events of " + q.pool(), sql.inPool, rows, q.after(), kinds, kinds, q.pool(), q.limit());
    return EventPage.of(events, q.limit());
  }
}
