package io.allot.fence;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Makes writes to Redis conditional on the writer's fencing token: one script compares the token with the one in
 * force for the data key (kept in a fence key next to it), and only if it is at least that one performs the write and
 * records the token, atomically. A stale token gets {@link StaleTokenException} and nothing is written.
 *
 * <pre>{@code
 * RedisFence fence = RedisFence.builder(connection.sync()).build();   // standalone or cluster (RedisClusterCommands)
 * fence.set("site-42:last", "2024-05-01", unit.token());
 * fence.hset("site-42:rows", "page-7", json, unit.token());
 * fence.call("site-42:log", unit.token(), "RPUSH", line);             // any single-key command
 * }</pre>
 *
 * <p>The fenced resource is the data key: the fence key of {@code k} is {@code fence:{k}} (or {@code fence:k} when
 * {@code k} has a hash tag already), so it always hashes to {@code k}'s cluster slot and one script touches both.
 * Fence keys have no expiry and must not be deleted while an old owner might still write: without its fence key a
 * data key accepts any token again. They live exactly as durably as the data next to them; a Redis that loses writes
 * (a failover to a lagging replica, a restart without persistence) can lose a fence key with its data.
 *
 * <p>Thread-safe when {@code commands} is (Lettuce's are). Tokens are compared as exact decimal integers, never as
 * Lua floating point numbers.
 */
public final class RedisFence {
  /** The default prefix of fence keys. */
  public static final String DEFAULT_PREFIX = "fence:";

  /*
   * KEYS[1] the fence key, KEYS[2] the data key; ARGV[1] the token (decimal, no sign, no leading zero),
   * ARGV[2] the command, ARGV[3..] its arguments after the key. Returns {0, token in force} if stale, else
   * {1, the command's reply}. The write runs before the fence moves, so a command that fails moves nothing.
   */
  static final String SCRIPT = """
      local cur = redis.call('GET', KEYS[1])
      local t = ARGV[1]
      if cur and (#cur > #t or (#cur == #t and cur > t)) then
        return {0, cur}
      end
      local reply = redis.call(ARGV[2], KEYS[2], unpack(ARGV, 3))
      if cur ~= t then
        redis.call('SET', KEYS[1], t)
      end
      return {1, reply}
      """;

  private final RedisClusterCommands<String, String> commands;
  private final String prefix;
  private final String sha;

  private RedisFence(Builder b) {
    this.commands = b.commands;
    this.prefix = b.prefix;
    this.sha = commands.digest(SCRIPT);
  }

  /**
   * A builder over {@code commands}: Lettuce's synchronous API of a standalone connection ({@code RedisCommands})
   * or of a cluster connection ({@code RedisAdvancedClusterCommands}), with a {@code String} codec.
   */
  public static Builder builder(RedisClusterCommands<String, String> commands) {
    return new Builder(commands);
  }

  /** {@code SET key value}, fenced. */
  public void set(String key, String value, long token) {
    call(key, token, "SET", Objects.requireNonNull(value, "value"));
  }

  /**
   * {@code HSET key field value}, fenced.
   *
   * @return true if the field is new
   */
  public boolean hset(String key, String field, String value, long token) {
    Object reply = call(key, token, "HSET", Objects.requireNonNull(field, "field"), Objects.requireNonNull(value, "value"));
    return reply instanceof Long n && n > 0;
  }

  /**
   * Runs {@code command key args...}, fenced: any command whose only key is its first argument (SET with options,
   * HSET, DEL, RPUSH, XADD, INCRBY, EXPIRE...). A command that touches other keys is not allowed here (it would break
   * in a cluster and escape the fence).
   *
   * @return the command's reply as Lettuce gives it in a script's array reply: {@code Long}, {@code String} (bulk and
   *     status replies), {@code List} or null
   * @throws StaleTokenException if a larger token has written to {@code key} (nothing was run)
   * @throws io.lettuce.core.RedisCommandExecutionException if the command fails (nothing was fenced)
   */
  public Object call(String key, long token, String command, String... args) {
    String fenceKey = fenceKey(key);
    if (token < 0) {
      throw new IllegalArgumentException("token must be >= 0, was " + token);
    }
    if (command == null || command.isBlank()) {
      throw new IllegalArgumentException("command must not be blank, was '" + command + "'");
    }
    String[] argv = new String[args.length + 2];
    argv[0] = Long.toString(token);
    argv[1] = command;
    for (int i = 0; i < args.length; i++) {
      argv[i + 2] = Objects.requireNonNull(args[i], () -> command + " argument is null");
    }
    List<Object> reply = run(new String[] {fenceKey, key}, argv);
    if (((Long) reply.get(0)) == 0L) {
      throw new StaleTokenException(key, token, Long.parseLong((String) reply.get(1)));
    }
    return reply.size() > 1 ? reply.get(1) : null;
  }

  /** The token in force for {@code key}: the largest that has written to it; empty if none has. */
  public OptionalLong inForce(String key) {
    String t = commands.get(fenceKey(key));
    return t == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(t));
  }

  /**
   * The fence key of {@code key}, in the same cluster slot: {@code prefix + key} if {@code key} has a hash tag (a
   * non-empty {@code {...}} after its first '{'), else {@code prefix + "{" + key + "}"}.
   *
   * @throws IllegalArgumentException if {@code key} is empty, or has a '}' but no hash tag (no fence key can share
   *     its slot then: give it a hash tag)
   */
  public String fenceKey(String key) {
    return fenceKey(prefix, key);
  }

  /** {@link #fenceKey(String)} for {@code prefix}; no Redis needed. */
  static String fenceKey(String prefix, String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty, was " + (key == null ? "null" : "''"));
    }
    int open = key.indexOf('{');
    if (open >= 0) {
      int close = key.indexOf('}', open + 1);
      if (close > open + 1) {
        return prefix + key; // the prefix has no brace: the key's hash tag stays the first one
      }
    }
    if (key.indexOf('}') >= 0) {
      throw new IllegalArgumentException("key '" + key + "' has a '}' but no hash tag, so no fence key can share its"
          + " cluster slot: give it a hash tag, such as '{" + key.replace("{", "").replace("}", "") + "}'");
    }
    return prefix + "{" + key + "}"; // no '}' in the key: the tag is the whole key, which is what the key hashes
  }

  private List<Object> run(String[] keys, String[] argv) {
    try {
      return commands.evalsha(sha, ScriptOutputType.MULTI, keys, argv);
    } catch (RedisNoScriptException e) {
      // first use on this server (or after SCRIPT FLUSH / a restart): EVAL loads it
      return commands.eval(SCRIPT, ScriptOutputType.MULTI, keys, argv);
    }
  }

  @Override
  public String toString() {
    return "RedisFence[" + prefix + "]";
  }

  /** Builds a {@link RedisFence}. */
  public static final class Builder {
    private final RedisClusterCommands<String, String> commands;
    private String prefix = DEFAULT_PREFIX;

    private Builder(RedisClusterCommands<String, String> commands) {
      this.commands = Objects.requireNonNull(commands, "commands");
    }

    /**
     * The prefix of fence keys; default {@value #DEFAULT_PREFIX}. Must be non-empty and without '{' or '}' (it
     * would change the key's hash slot).
     *
     * @throws IllegalArgumentException if it is not
     */
    public Builder prefix(String prefix) {
      if (prefix == null || prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
        throw new IllegalArgumentException("prefix must be non-empty without '{' or '}', was '" + prefix + "'");
      }
      this.prefix = prefix;
      return this;
    }

    /** The fence. */
    public RedisFence build() {
      return new RedisFence(this);
    }
  }
}
