package io.allot.store.redis;

import io.allot.store.queue.ClaimedTask;
import io.allot.store.queue.NewTask;
import io.allot.store.queue.Outcome;
import io.allot.store.queue.QueueStats;
import io.allot.store.queue.Task;
import io.allot.store.queue.TaskLimits;
import io.allot.store.queue.TaskQueue;
import io.allot.store.queue.TaskStatus;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@link TaskQueue} on Redis (standalone or Cluster): the keys of {@link TaskKeys}, all in the queue's slot, and one
 * Lua script per method ({@link TaskScripts}), run with EVALSHA (EVAL when the node has not cached it). Times are
 * Redis {@code TIME} in microseconds, read inside each script; tokens are {@code max(previous + 1, now µs)}; the
 * clock margin comes from the store's {@link io.allot.store.Safety}. Input is checked here, before any call.
 * Immutable.
 */
final class RedisTaskQueue implements TaskQueue {
  /** The most tasks one claim moves from {@code delayed} (and from {@code locks}) into {@code ready}. */
  static final int MOVE_LIMIT = TaskLimits.MAX_BATCH;
  /** Longer delays are cut to this (100 years), so due times stay exact as Lua numbers. */
  static final Duration MAX_DELAY = Duration.ofDays(36_500);

  private final RedisConnection redis;
  private final String name;
  private final String marginMicros;
  private final String[] keys;

  /**
   * @param clockMargin how long past its expiry a lock must be before its task is runnable again
   * @throws IllegalArgumentException if the name is not a valid queue name ({@link TaskLimits#checkQueue})
   */
  RedisTaskQueue(RedisConnection redis, Duration clockMargin, String name) {
    this.redis = redis;
    this.name = TaskLimits.checkQueue(name);
    this.marginMicros = Long.toString(clockMargin.toNanos() / 1000);
    this.keys = TaskKeys.of(redis, name);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int enqueue(Collection<NewTask> tasks) {
    if (tasks.size() > TaskLimits.MAX_BATCH) {
      throw new IllegalArgumentException("at most " + TaskLimits.MAX_BATCH + " tasks per enqueue but got "
          + tasks.size());
    }
    String[] args = new String[tasks.size() * 5];
    Set<String> seen = new HashSet<>();
    int i = 0;
    for (NewTask t : tasks) {
      Objects.requireNonNull(t, "task");
      if (!seen.add(t.key())) {
        throw new IllegalArgumentException("task key '" + t.key() + "' appears twice in one enqueue");
      }
      Duration delay = t.delay().compareTo(MAX_DELAY) > 0 ? MAX_DELAY : t.delay();
      args[i++] = t.key();
      args[i++] = t.data();
      args[i++] = Integer.toString(t.priority());
      args[i++] = Integer.toString(t.maxAttempts());
      args[i++] = Long.toString(delay.toNanos() / 1000);
    }
    if (args.length == 0) {
      return 0;
    }
    Long added = redis.run("enqueue " + tasks.size() + " tasks in queue " + name, TaskScripts.ENQUEUE,
        ScriptOutputType.INTEGER, keys, args);
    return added.intValue();
  }

  @Override
  public List<ClaimedTask> claim(String worker, int max, Duration lockTtl) {
    TaskLimits.checkWorker(worker);
    TaskLimits.checkBatch("max", max);
    long ttl = TaskLimits.checkLockTtl(lockTtl);
    List<Object> flat = redis.run("claim tasks in queue " + name, TaskScripts.CLAIM, ScriptOutputType.MULTI, keys,
        worker, Integer.toString(max), Long.toString(ttl), marginMicros, Integer.toString(MOVE_LIMIT));
    List<ClaimedTask> out = new ArrayList<>(flat.size() / 6);
    for (int i = 0; i + 5 < flat.size(); i += 6) {
      out.add(new ClaimedTask((String) flat.get(i), (String) flat.get(i + 1), Long.parseLong((String) flat.get(i + 2)),
          Integer.parseInt((String) flat.get(i + 3)), Integer.parseInt((String) flat.get(i + 4)),
          Long.parseLong((String) flat.get(i + 5))));
    }
    return out;
  }

  @Override
  public boolean extend(String key, long token, Duration lockTtl) {
    TaskLimits.checkKey(key);
    long ttl = TaskLimits.checkLockTtl(lockTtl);
    return redis.runForFlag("extend task " + key + " in queue " + name, TaskScripts.EXTEND, keys, key,
        Long.toString(token), Long.toString(ttl));
  }

  @Override
  public Outcome finish(String key, long token) {
    TaskLimits.checkKey(key);
    boolean done = redis.runForFlag("finish task " + key + " in queue " + name, TaskScripts.FINISH, keys, key,
        Long.toString(token), marginMicros);
    return done ? Outcome.FINISHED : Outcome.REJECTED;
  }

  @Override
  public Map<String, Outcome> finishAll(Map<String, Long> tokens) {
    TaskLimits.checkBatch("tasks per finishAll", Math.max(1, tokens.size()));
    Map<String, Outcome> out = new LinkedHashMap<>();
    if (tokens.isEmpty()) {
      return out;
    }
    String[] args = new String[1 + 2 * tokens.size()];
    args[0] = marginMicros;
    int i = 1;
    for (Map.Entry<String, Long> e : tokens.entrySet()) {
      args[i++] = TaskLimits.checkKey(e.getKey());
      args[i++] = Long.toString(Objects.requireNonNull(e.getValue(), "token"));
    }
    List<Object> ok = redis.run("finish " + tokens.size() + " tasks in queue " + name, TaskScripts.FINISH_ALL,
        ScriptOutputType.MULTI, keys, args);
    int j = 0;
    for (String key : tokens.keySet()) {
      out.put(key, Long.valueOf(1).equals(ok.get(j++)) ? Outcome.FINISHED : Outcome.REJECTED);
    }
    return out;
  }

  @Override
  public Outcome fail(String key, long token, String error, Duration backoff) {
    TaskLimits.checkKey(key);
    Objects.requireNonNull(backoff, "backoff");
    long delay = TaskLimits.checkBackoff(backoff.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : backoff);
    String err = TaskLimits.storedError(error);
    Long status = redis.run("fail task " + key + " in queue " + name, TaskScripts.FAIL, ScriptOutputType.INTEGER,
        keys, key, Long.toString(token), err, Long.toString(delay));
    if (status == null || status == 0L) {
      return Outcome.REJECTED;
    }
    return status == TaskStatus.IGNORED.code() ? Outcome.IGNORED : Outcome.RETRY_SCHEDULED;
  }

  @Override
  public Optional<Task> get(String key) {
    TaskLimits.checkKey(key);
    List<Object> r = redis.run("read task " + key + " in queue " + name, TaskScripts.GET, ScriptOutputType.MULTI,
        keys, key);
    if (r == null || r.isEmpty() || r.get(0) == null) {
      return Optional.empty();
    }
    return Optional.of(task(key, (String) r.get(0), (String) r.get(1), (String) r.get(2)));
  }

  /** Parses a state record {@code "status|attempts|max|priority|due|updated|token|worker"} (µs) into a task. */
  static Task task(String key, String record, String data, String error) {
    String[] f = record.split("\\|", 8);
    if (f.length != 8) {
      throw new IllegalStateException("task '" + key + "' has an unreadable record '" + record + "'");
    }
    return new Task(key, TaskStatus.ofCode(Integer.parseInt(f[0])), data, Integer.parseInt(f[3]),
        Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[4]) / 1000, Long.parseLong(f[5]) / 1000,
        Long.parseLong(f[6]), f[7], error);
  }

  @Override
  public int retry(Collection<String> keys) {
    return byHand("retry", TaskScripts.RETRY, keys);
  }

  @Override
  public int ignore(Collection<String> keys) {
    return byHand("ignore", TaskScripts.IGNORE, keys);
  }

  private int byHand(String what, Scripts.Script script, Collection<String> taskKeys) {
    taskKeys.forEach(TaskLimits::checkKey);
    if (taskKeys.isEmpty()) {
      return 0;
    }
    String[] args = new LinkedHashSet<>(taskKeys).toArray(new String[0]);
    Long n = redis.run(what + " " + args.length + " tasks in queue " + name, script, ScriptOutputType.INTEGER, keys,
        args);
    return n.intValue();
  }

  @Override
  public void limitRate(double tasksPerSecond) {
    TaskLimits.checkRate(tasksPerSecond);
    redis.run("limit the rate of queue " + name, TaskScripts.LIMIT_RATE, ScriptOutputType.INTEGER, keys,
        Double.toString(tasksPerSecond));
  }

  @Override
  public QueueStats stats(int failures) {
    if (failures < 0) {
      throw new IllegalArgumentException("failures must be >= 0 but was " + failures);
    }
    List<Object> r = redis.run("stats of queue " + name, TaskScripts.STATS, ScriptOutputType.MULTI, keys,
        Integer.toString(failures));
    Map<TaskStatus, Long> counts = new EnumMap<>(TaskStatus.class);
    List<?> flat = (List<?>) r.get(0);
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      long n = Long.parseLong((String) flat.get(i + 1));
      if (n != 0) {
        counts.put(TaskStatus.ofCode(Integer.parseInt((String) flat.get(i))), n);
      }
    }
    String oldest = (String) r.get(1);
    String rate = (String) r.get(2);
    List<Task> recent = new ArrayList<>();
    for (int i = 3; i + 3 < r.size(); i += 4) {
      recent.add(task((String) r.get(i + 3), (String) r.get(i), (String) r.get(i + 1), (String) r.get(i + 2)));
    }
    return new QueueStats(counts, oldest.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(oldest)
        / 1000), recent, rate.isEmpty() ? 0 : Double.parseDouble(rate));
  }

  @Override
  public int purge(Duration age, int max) {
    TaskLimits.checkAge(age);
    TaskLimits.checkBatch("max", max);
    Duration a = age.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : age;
    Long n = redis.run("purge queue " + name, TaskScripts.PURGE, ScriptOutputType.INTEGER, keys,
        Long.toString(a.toNanos() / 1000), Integer.toString(max));
    return n.intValue();
  }

  @Override
  public String toString() {
    return "RedisTaskQueue[" + name + " on " + redis.where() + "]";
  }
}
