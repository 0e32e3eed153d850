package io.allot.store.redis;

import io.allot.store.jobs.JobQueues;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * {@link JobQueues} on Redis: the queues whose {@code jobs} hash exists (Redis drops an empty hash) or whose
 * {@code rate} hash holds a rate above 0, found by SCAN over the keys holding {@code allot:q:} on every node (each
 * master of a Cluster). A key is taken for a queue's only when it is exactly that queue's key ({@link JobKeys}): the
 * name read back from it gives the very same key. A cheap view.
 */
final class RedisJobQueues implements JobQueues {
  private static final String JOBS = ":jobs";
  private static final String RATE = ":rate";

  private final RedisConnection redis;

  RedisJobQueues(RedisConnection redis) {
    this.redis = redis;
  }

  @Override
  public List<String> names() {
    TreeSet<String> names = new TreeSet<>();
    redis.onEveryNode("list the job queues", (address, r) -> {
      ScanArgs args = ScanArgs.Builder.matches("*allot:q:*").limit(1000);
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = r.scan(cursor, args);
        for (String key : page.getKeys()) {
          String queue = queueOf(key);
          if (queue == null || names.contains(queue)) {
            continue;
          }
          if (key.endsWith(JOBS)) {
            names.add(queue);
          } else {
            String rate = r.hget(key, "rate");
            if (rate != null && !rate.isEmpty() && Double.parseDouble(rate) > 0) {
              names.add(queue);
            }
          }
        }
        cursor = page;
      } while (!cursor.isFinished());
      return null;
    });
    return List.copyOf(new ArrayList<>(names));
  }

  /** The queue whose {@code jobs} or {@code rate} key {@code key} is, or null if it is none's. */
  static String queueOf(String key) {
    String suffix = key.endsWith(JOBS) ? "jobs" : key.endsWith(RATE) ? "rate" : null;
    if (suffix == null) {
      return null;
    }
    String base = key.substring(0, key.length() - suffix.length() - 1);
    String marker = "allot:q:";
    int at = base.indexOf(marker);
    if (at < 0) {
      return null;
    }
    String name = base.substring(at + marker.length());
    if (base.startsWith("{" + marker) && name.endsWith("}")) {
      String plain = name.substring(0, name.length() - 1);
      if (RedisKeys.companion(marker + plain, suffix).equals(key)) {
        return plain;
      }
    }
    return !name.isEmpty() && RedisKeys.companion(marker + name, suffix).equals(key) ? name : null;
  }
}
