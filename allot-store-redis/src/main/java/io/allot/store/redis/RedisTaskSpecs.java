package io.allot.store.redis;

import io.allot.store.Topic;
import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskLimits;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link TaskSpecs} of one pool on Redis (standalone or Cluster): the keys of {@link SpecKeys}, all in one slot, and
 * one Lua script per method ({@link SpecScripts}), run with EVALSHA (EVAL when the node has not cached it); each
 * write bumps the pool's version and PUBLISHes the task name on {@link Topic#taskSpecs(String)} in its script. Times
 * are Redis {@code TIME} in milliseconds, read inside each script. Input is checked here ({@link TaskLimits}),
 * before any call. Immutable.
 */
final class RedisTaskSpecs implements TaskSpecs {
  private final RedisConnection redis;
  private final String pool;
  private final String channel;
  private final String[] keys;

  /** {@code pool}: checked by {@link io.allot.store.Store#checkPool}. */
  RedisTaskSpecs(RedisConnection redis, String pool) {
    this.redis = redis;
    this.pool = pool;
    this.channel = Topic.taskSpecs(pool).channel();
    this.keys = SpecKeys.of(redis, pool);
  }

  @Override
  public String pool() {
    return pool;
  }

  @Override
  public TaskCreated create(String name, String args, int cost) {
    check(name, args, cost);
    List<Object> r = run("create task " + name, SpecScripts.CREATE, name, args, Integer.toString(cost));
    return new TaskCreated(TaskCreated.Outcome.valueOf((String) r.get(0)), spec(name, r));
  }

  @Override
  public Optional<TaskSpec> update(String name, String args, int cost) {
    check(name, args, cost);
    return specOf(name, run("update task " + name, SpecScripts.UPDATE, name, args, Integer.toString(cost)));
  }

  /** One script: an empty cost keeps the spec's (update.lua). */
  @Override
  public Optional<TaskSpec> updateArgs(String name, String args) {
    TaskLimits.checkName(name);
    TaskLimits.checkArgs(args);
    return specOf(name, run("update task " + name, SpecScripts.UPDATE, name, args, ""));
  }

  @Override
  public Optional<TaskSpec> delete(String name) {
    TaskLimits.checkName(name);
    return specOf(name, run("delete task " + name, SpecScripts.DELETE, name));
  }

  @Override
  public Optional<TaskSpec> get(String name) {
    TaskLimits.checkName(name);
    return specOf(name, run("read task " + name, SpecScripts.GET, name));
  }

  @Override
  public List<TaskSpec> list() {
    List<Object> r = run("list tasks", SpecScripts.LIST, "");
    Map<String, String> args = pairs(r.get(1));
    Map<String, String> runs = pairs(r.get(2));
    Map<String, String> faults = pairs(r.get(3));
    List<TaskSpec> out = new ArrayList<>();
    pairs(r.get(0)).forEach((name, record) -> out.add(spec(name, record, args.get(name), runs.get(name),
        faults.get(name))));
    out.sort((a, b) -> a.name().compareTo(b.name()));
    return List.copyOf(out);
  }

  @Override
  public long version() {
    String v = redis.call("read the task spec version of pool " + pool, r -> r.get(keys[4]));
    return v == null ? 0 : Long.parseLong(v);
  }

  @Override
  public boolean started(String name, TaskRun run) {
    TaskLimits.checkName(name);
    Objects.requireNonNull(run, "run");
    return redis.runForFlag("record the start of task " + name + " in pool " + pool, SpecScripts.STARTED, keys,
        channel, name, run.member(), Long.toString(run.token()), Long.toString(run.revision()));
  }

  @Override
  public boolean fault(String name, long token, TaskFault fault) {
    TaskLimits.checkName(name);
    String record = fault == null ? "" : fault.failures() + "|" + (fault.failing() ? 1 : 0) + "|"
        + fault.lastErrorMillis() + "|" + fault.lastError();
    return redis.runForFlag("record the faults of task " + name + " in pool " + pool, SpecScripts.FAULT, keys,
        channel, name, Long.toString(token), record);
  }

  @Override
  public boolean purge(String name, long revision) {
    TaskLimits.checkName(name);
    return redis.runForFlag("purge task " + name + " from pool " + pool, SpecScripts.PURGE, keys, channel, name,
        Long.toString(revision));
  }

  private static void check(String name, String args, int cost) {
    TaskLimits.checkName(name);
    TaskLimits.checkArgs(args);
    TaskLimits.checkCost(cost);
  }

  private List<Object> run(String op, Script script, String name, String... more) {
    String[] argv = new String[2 + more.length];
    argv[0] = channel;
    argv[1] = name;
    System.arraycopy(more, 0, argv, 2, more.length);
    return redis.run(op + " in pool " + pool, script, ScriptOutputType.MULTI, keys, argv);
  }

  private static Optional<TaskSpec> specOf(String name, List<Object> r) {
    return "NONE".equals(r.get(0)) ? Optional.empty() : Optional.of(spec(name, r));
  }

  /** The spec of a reply {@code {outcome, record, args, run, fault}}. */
  private static TaskSpec spec(String name, List<Object> r) {
    return spec(name, (String) r.get(1), (String) r.get(2), (String) r.get(3), (String) r.get(4));
  }

  /** A flat HGETALL reply as a map. */
  private static Map<String, String> pairs(Object flat) {
    List<?> l = (List<?>) flat;
    Map<String, String> out = new HashMap<>(l.size());
    for (int i = 0; i + 1 < l.size(); i += 2) {
      out.put((String) l.get(i), (String) l.get(i + 1));
    }
    return out;
  }

  /**
   * Parses a spec from its record {@code "revision|cost|created|updated|deleted"}, its arguments, its run
   * {@code "token|revision|started|member"} (or null) and its fault {@code "failures|failing|millis|error"} (or
   * null).
   *
   * @throws IllegalStateException naming the task if a record is unreadable (written by something else)
   */
  static TaskSpec spec(String name, String record, String args, String run, String fault) {
    try {
      String[] f = record.split("\\|", -1);
      if (f.length != 5 || args == null) {
        throw new IllegalArgumentException("record '" + record + "'" + (args == null ? " without arguments" : ""));
      }
      TaskRun r = null;
      if (run != null) {
        String[] p = run.split("\\|", 4);
        if (p.length != 4) {
          throw new IllegalArgumentException("run '" + run + "'");
        }
        r = new TaskRun(p[3], Long.parseLong(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2]));
      }
      TaskFault t = null;
      if (fault != null) {
        String[] p = fault.split("\\|", 4);
        if (p.length != 4) {
          throw new IllegalArgumentException("fault '" + fault + "'");
        }
        t = new TaskFault(Integer.parseInt(p[0]), "1".equals(p[1]), p[3], Long.parseLong(p[2]));
      }
      return new TaskSpec(name, args, Integer.parseInt(f[1]), Long.parseLong(f[0]), Long.parseLong(f[2]),
          Long.parseLong(f[3]), Long.parseLong(f[4]), r, t);
    } catch (IllegalArgumentException e) { // NumberFormatException included
      throw new IllegalStateException("task spec '" + name + "' has an unreadable " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "RedisTaskSpecs[" + pool + " on " + redis.where() + "]";
  }
}
