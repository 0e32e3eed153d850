package io.allot.store.redis;

import io.allot.store.Handoff;
import io.allot.store.Ownership;
import io.allot.store.Topic;
import io.allot.store.UnitHold;
import io.allot.store.UnitOwner;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@link Ownership} of one pool on Redis: the hash {@link RedisKeys#ownership} (unit -> {@code member|session|token})
 * next to the pool's registrations, tokens from the pool's counter ({@link RedisKeys#counter}), holds in
 * {@link RedisKeys#holds} (unit -> {@code member|untilMillis}), all in the pool's slot. A claim of any number of
 * units is one script ({@link Scripts#CLAIM_ALL}) that checks the claimant, the pool's lost-state guard
 * ({@link RedisKeys#guard}) and every owner (with the clock margin) against the registrations and {@code TIME}.
 */
final class RedisOwnership extends PoolScoped implements Ownership {

  RedisOwnership(RedisConnection redis, String pool) {
    super(redis, pool);
  }

  @Override
  public OptionalLong claim(String unit, String member, long session) {
    Objects.requireNonNull(unit, "unit");
    Long token = claimAll(List.of(unit), member, session).get(unit);
    return token == null ? OptionalLong.empty() : OptionalLong.of(token);
  }

  @Override
  public Map<String, Long> claimAll(List<String> units, String member, long session) {
    Args.memberId(member);
    Map<String, Long> out = new LinkedHashMap<>();
    if (units.isEmpty()) {
      return out;
    }
    String[] keys = redis.sameSlot("claim in pool '" + pool + "'", pool, RedisKeys.members(pool),
        RedisKeys.ownership(pool), RedisKeys.counter(pool), RedisKeys.guard(pool));
    String[] args = new String[4 + units.size()];
    args[0] = member;
    args[1] = Long.toString(session);
    args[2] = marginArg();
    args[3] = guardArg();
    for (int i = 0; i < units.size(); i++) {
      args[4 + i] = Objects.requireNonNull(units.get(i), "unit");
    }
    List<Object> result = redis.run("claim " + units.size() + " units in " + pool, Scripts.CLAIM_ALL,
        ScriptOutputType.MULTI, keys, args);
    reportGuard((String) result.get(0), (String) result.get(1));
    for (int i = 0; i < units.size(); i++) {
      String t = (String) result.get(2 + i);
      if (t != null && !t.isEmpty()) {
        out.put(units.get(i), Long.parseLong(t));
      }
    }
    return out;
  }

  @Override
  public boolean release(String unit, String member, long token) {
    return release(unit, member, token, Duration.ZERO);
  }

  @Override
  public boolean release(String unit, String member, long token, Duration hold) {
    Objects.requireNonNull(unit, "unit");
    Args.memberId(member);
    Objects.requireNonNull(hold, "hold");
    if (hold.isNegative()) {
      throw new IllegalArgumentException("hold must be >= 0 but was " + hold);
    }
    String[] keys = redis.sameSlot("release in pool '" + pool + "'", pool, RedisKeys.ownership(pool),
        RedisKeys.holds(pool));
    return redis.runForFlag("release " + unit + " in " + pool, Scripts.RELEASE_UNIT, keys, unit, member,
        Long.toString(token), Topic.releases(pool).channel(), Long.toString(hold.toMillis()));
  }

  @Override
  public Set<String> releaseAll(Map<String, Long> tokens, String member) {
    Args.memberId(member);
    Set<String> out = new LinkedHashSet<>();
    if (tokens.isEmpty()) {
      return out;
    }
    String[] args = new String[2 + 2 * tokens.size()];
    args[0] = member;
    args[1] = Topic.releases(pool).channel();
    int i = 2;
    for (Map.Entry<String, Long> e : tokens.entrySet()) {
      args[i++] = Objects.requireNonNull(e.getKey(), "unit");
      args[i++] = Long.toString(Objects.requireNonNull(e.getValue(), "token"));
    }
    String[] keys = redis.sameSlot("release in pool '" + pool + "'", pool, RedisKeys.ownership(pool));
    List<Object> released = redis.run("release " + tokens.size() + " units in " + pool, Scripts.RELEASE_ALL,
        ScriptOutputType.MULTI, keys, args);
    for (Object u : released) {
      out.add((String) u);
    }
    return out;
  }

  @Override
  public Set<String> handOffAll(List<Handoff> handoffs, String member) {
    Args.memberId(member);
    Set<String> out = new LinkedHashSet<>();
    if (handoffs.isEmpty()) {
      return out;
    }
    String[] args = new String[3 + 3 * handoffs.size()];
    args[0] = member;
    args[1] = Topic.releases(pool).channel();
    args[2] = guardArg();
    int i = 3;
    for (Handoff h : handoffs) {
      args[i++] = h.unit();
      args[i++] = Long.toString(h.token());
      args[i++] = h.to() == null ? "" : h.to();
    }
    String[] keys = redis.sameSlot("hand off in pool '" + pool + "'", pool, RedisKeys.members(pool),
        RedisKeys.ownership(pool), RedisKeys.counter(pool), RedisKeys.guard(pool));
    List<Object> result = redis.run("hand off " + handoffs.size() + " units in " + pool, Scripts.HAND_OFF,
        ScriptOutputType.MULTI, keys, args);
    reportGuard((String) result.get(0), (String) result.get(1));
    for (Object u : result.subList(2, result.size())) {
      out.add((String) u);
    }
    return out;
  }

  @Override
  public Map<String, UnitHold> holds() {
    List<Object> flat = redis.run("read holds of " + pool, Scripts.HOLDS, ScriptOutputType.MULTI,
        new String[] {RedisKeys.holds(pool)});
    Map<String, UnitHold> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      UnitHold hold = parseHold((String) flat.get(i), (String) flat.get(i + 1));
      if (hold != null) {
        out.put(hold.unit(), hold);
      }
    }
    return out;
  }

  @Override
  public Map<String, UnitOwner> owners() {
    return redis.records("ownership", RedisKeys.ownership(pool), RedisOwnership::parse);
  }

  @Override
  public Map<String, UnitOwner> ownersOf(Collection<String> units) {
    Map<String, UnitOwner> out = new LinkedHashMap<>();
    if (units.isEmpty()) {
      return out;
    }
    String[] fields = units.stream().map(u -> Objects.requireNonNull(u, "unit")).toArray(String[]::new);
    List<KeyValue<String, String>> values = redis.call("HMGET ownership " + RedisKeys.ownership(pool),
        r -> r.hmget(RedisKeys.ownership(pool), fields));
    for (KeyValue<String, String> kv : values) {
      if (kv.hasValue()) {
        UnitOwner owner = parse(kv.getKey(), kv.getValue());
        if (owner != null) {
          out.put(owner.unit(), owner);
        }
      }
    }
    return out;
  }

  @Override
  public boolean validToken(String unit, String member, long session, long token) {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(member, "member");
    String[] keys = redis.sameSlot("check a token in pool '" + pool + "'", pool, RedisKeys.members(pool),
        RedisKeys.ownership(pool));
    return redis.runForFlag("check token of " + unit + " in " + pool, Scripts.VALID_TOKEN, keys, unit, member,
        Long.toString(session), Long.toString(token));
  }

  /**
   * Parses {@code "member|session|token"} (the member id may itself contain '|': parsed from the right).
   *
   * @return the owner, or null if malformed
   */
  static UnitOwner parse(String unit, String value) {
    int t = value.lastIndexOf('|');
    int s = t <= 0 ? -1 : value.lastIndexOf('|', t - 1);
    if (s < 0) {
      return null;
    }
    try {
      return new UnitOwner(unit, value.substring(0, s), Long.parseLong(value.substring(s + 1, t)),
          Long.parseLong(value.substring(t + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Parses a hold {@code "member|untilMillis"} (the member id may contain '|': parsed from the right).
   *
   * @return the hold, or null if malformed
   */
  static UnitHold parseHold(String unit, String value) {
    int u = value.lastIndexOf('|');
    if (u < 0) {
      return null;
    }
    try {
      return new UnitHold(unit, value.substring(0, u), Long.parseLong(value.substring(u + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
