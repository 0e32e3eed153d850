package io.allot.store.redis;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventPage;
import io.allot.store.events.EventQuery;
import io.allot.store.events.EventRetention;
import io.allot.store.events.Events;
import io.allot.store.events.NewEvent;
import io.allot.store.events.RecordedEvent;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Events} on Redis: every key in the one slot {@code {allot:events}} (so Redis Cluster runs the append as
 * one script): the id counter, a hash id -> event, a hash id -> its pool's sorted set, a sorted set of every id, one
 * by time, and one per pool (score and member the id; store-wide events in a set of their own). An append is one
 * script ({@link #APPEND}) that takes the id, records the event and trims by the retention; ids grow with the store
 * time (the token rule), and become visible in id order as scripts run one at a time. A query reads a range of ids
 * of the pool's (or every) sorted set and then their events, filtering kinds here. An immutable view.
 */
final class RedisEvents implements Events {
  private static final Logger log = LoggerFactory.getLogger(RedisEvents.class);

  /** The script of an append (events/append.lua). */
  static final Script APPEND = Script.load("events/append.lua");
  /** The hash tag of every key. */
  static final String TAG = "{allot:events}";
  static final String SEQ = TAG + ":seq";
  static final String DATA = TAG + ":data";
  static final String BUCKETS = TAG + ":bucket";
  static final String ALL = TAG + ":all";
  static final String TIME = TAG + ":time";
  /** The sorted set of store-wide events (no pool). */
  static final String STORE_WIDE = TAG + ":store";

  private final RedisConnection redis;

  RedisEvents(RedisConnection redis) {
    this.redis = redis;
  }

  /** The sorted set of {@code pool}'s ids (null: the store-wide events). */
  static String bucket(String pool) {
    return pool == null ? STORE_WIDE : TAG + ":pool:" + pool;
  }

  @Override
  public RecordedEvent append(NewEvent event, EventRetention retention) {
    String[] keys = {SEQ, DATA, BUCKETS, ALL, TIME, bucket(event.pool())};
    List<Object> reply = redis.run("append an event", APPEND, ScriptOutputType.MULTI, keys, encode(event),
        Integer.toString(retention.perPool()), Long.toString(retention.maxAge().toMillis()));
    long id = Long.parseLong(String.valueOf(reply.get(0)));
    long time = ((Number) reply.get(1)).longValue();
    return RecordedEvent.of(id, time, event);
  }

  @Override
  public EventPage query(EventQuery q) {
    String key = q.pool() == null ? ALL : bucket(q.pool());
    int batch = q.kinds().isEmpty() ? q.limit() : Math.max(q.limit(), 200);
    List<RecordedEvent> out = new ArrayList<>();
    long after = q.after();
    while (out.size() < q.limit()) {
      long from = after;
      List<String> ids = redis.call("read event ids of " + key,
          r -> r.zrangebyscore(key, Range.from(Range.Boundary.excluding(from), Range.Boundary.unbounded()),
              Limit.create(0, batch)));
      if (ids.isEmpty()) {
        break;
      }
      List<KeyValue<String, String>> rows = redis.call("read events", r -> r.hmget(DATA, ids.toArray(new String[0])));
      for (KeyValue<String, String> row : rows) {
        if (!row.hasValue()) {
          continue; // trimmed since the ids were read
        }
        RecordedEvent e = decode(Long.parseLong(row.getKey()), row.getValue());
        if (e != null && q.matches(e)) {
          out.add(e);
          if (out.size() == q.limit()) {
            break;
          }
        }
      }
      if (ids.size() < batch) {
        break;
      }
      after = Long.parseLong(ids.get(ids.size() - 1));
    }
    return EventPage.of(out, q.limit());
  }

  @Override
  public long lastId() {
    List<String> last = redis.call("read the last event id", r -> r.zrange(ALL, -1, -1));
    return last.isEmpty() ? 0 : Long.parseLong(last.get(0));
  }

  /** The payload: pool, kind, actor, subject, detail, each {@code -} (null) or {@code <length>:<text>}. */
  static String encode(NewEvent e) {
    StringBuilder b = new StringBuilder();
    for (String f : new String[] {e.pool(), e.kind().wire(), e.actor(), e.subject(), e.detail()}) {
      if (f == null) {
        b.append('-');
      } else {
        b.append(f.length()).append(':').append(f);
      }
    }
    return b.toString();
  }

  /** The event {@code id} of a data hash value ({@code <time>:<payload>}), or null (logged) if unreadable. */
  static RecordedEvent decode(long id, String value) {
    try {
      int colon = value.indexOf(':');
      long time = Long.parseLong(value.substring(0, colon));
      String[] f = new String[5];
      int at = colon + 1;
      for (int i = 0; i < 5; i++) {
        if (value.charAt(at) == '-') {
          at++;
          continue;
        }
        int c = value.indexOf(':', at);
        int len = Integer.parseInt(value.substring(at, c));
        f[i] = value.substring(c + 1, c + 1 + len);
        at = c + 1 + len;
      }
      return new RecordedEvent(id, Instant.ofEpochMilli(time), f[0], EventKind.fromWire(f[1]), f[2], f[3], f[4]);
    } catch (RuntimeException e) {
      log.warn("skipping the unreadable event {} in {}: {}", id, DATA, e.toString());
      return null;
    }
  }
}
