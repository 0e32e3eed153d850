package io.allot.store.memory;

import io.allot.store.events.EventPage;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventRetention;
import io.allot.store.events.Events;
import io.allot.store.events.NewEvent;
import io.allot.store.events.RecordedEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The {@link Events} of the {@link MemoryStore}: every event by id, and each pool's ids oldest first (store-wide
 * events in a pool of their own), under this object's own lock; appends are serialized by it, so ids become visible
 * in order. Retention is applied on append.
 */
final class MemoryEvents implements Events {
  private final LongSupplier millis;
  private final Runnable checkOpen;
  private final Object lock = new Object();
  /** Id -> event; guarded by lock. */
  private final TreeMap<Long, RecordedEvent> all = new TreeMap<>();
  /** Pool ("" for store-wide events) -> its ids, oldest first; guarded by lock. */
  private final Map<String, ArrayDeque<Long>> byPool = new HashMap<>();
  /** The last id given; guarded by lock (kept across a crash without data, as ids must keep growing). */
  private long lastId;

  MemoryEvents(LongSupplier millis, Runnable checkOpen) {
    this.millis = millis;
    this.checkOpen = checkOpen;
  }

  @Override
  public RecordedEvent append(NewEvent event, EventRetention retention) {
    checkOpen.run();
    synchronized (lock) {
      long now = millis.getAsLong();
      RecordedEvent e = RecordedEvent.of(++lastId, now, event);
      all.put(e.id(), e);
      ArrayDeque<Long> ids = byPool.computeIfAbsent(bucket(e.pool()), k -> new ArrayDeque<>());
      ids.addLast(e.id());
      while (ids.size() > retention.perPool()) {
        all.remove(ids.pollFirst());
      }
      long oldest = now - retention.maxAge().toMillis();
      while (!all.isEmpty() && all.firstEntry().getValue().time().toEpochMilli() < oldest) {
        RecordedEvent old = all.pollFirstEntry().getValue();
        ArrayDeque<Long> its = byPool.get(bucket(old.pool()));
        its.remove(old.id()); // the oldest of its pool: at the head
        if (its.isEmpty()) {
          byPool.remove(bucket(old.pool()));
        }
      }
      return e;
    }
  }

  @Override
  public EventPage query(EventQuery q) {
    checkOpen.run();
    List<RecordedEvent> out = new ArrayList<>();
    synchronized (lock) {
      for (RecordedEvent e : all.tailMap(q.after(), false).values()) {
        if (q.matches(e)) {
          out.add(e);
          if (out.size() == q.limit()) {
            break;
          }
        }
      }
    }
    return EventPage.of(out, q.limit());
  }

  @Override
  public long lastId() {
    checkOpen.run();
    synchronized (lock) {
      return all.isEmpty() ? 0 : all.lastKey();
    }
  }

  /** Forgets every event (a crash without data); ids keep growing. */
  void clear() {
    synchronized (lock) {
      all.clear();
      byPool.clear();
    }
  }

  private static String bucket(String pool) {
    return pool == null ? "" : pool;
  }
}
