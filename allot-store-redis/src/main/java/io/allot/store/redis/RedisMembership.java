package io.allot.store.redis;

import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Topic;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link Membership} of one pool on Redis. Registrations are the hash {@link RedisKeys#members} in the pool's slot:
 * member id -> {@code affinity|capacity|session|leaseUntilMillis}, followed by {@code |attributes} (the
 * {@linkplain MemberMeta#encodeAttributes() form-encoded attributes}, which hold no '|') when the member has
 * attributes. Records without attributes keep the 4-part form of earlier releases, which still read. Every write is
 * one script that reads {@code TIME} itself ({@link Scripts#REGISTER}, {@link Scripts#RENEW_MEMBER},
 * {@link Scripts#UPDATE_MEMBER}, {@link Scripts#DEREGISTER}). Registering reads (or stamps) the pool's lost-state
 * guard in the same script, and refuses an id whose record is live or expired less than the clock margin ago.
 */
final class RedisMembership extends PoolScoped implements Membership {

  RedisMembership(RedisConnection redis, String pool) {
    super(redis, pool);
  }

  @Override
  public long register(String id, MemberMeta meta, Duration ttl) {
    Args.memberId(id);
    Objects.requireNonNull(meta, "meta");
    String ttlMs = Args.ttlMillis(ttl);
    String[] keys = redis.sameSlot("register in pool '" + pool + "'", pool, pool, RedisKeys.members(pool),
        RedisKeys.counter(pool), RedisKeys.guard(pool));
    List<Object> result = redis.run("register " + id + " in " + pool, Scripts.REGISTER, ScriptOutputType.MULTI, keys,
        id, Integer.toString(meta.affinity()), Integer.toString(meta.capacity()), ttlMs, channel(),
        attributesPart(meta), marginArg(), guardArg());
    if ("conflict".equals(result.get(0))) {
      throw new MemberConflictException(pool, id, Long.parseLong((String) result.get(1)));
    }
    reportGuard((String) result.get(2), (String) result.get(3));
    return Long.parseLong((String) result.get(1));
  }

  @Override
  public boolean renew(String id, long session, Duration ttl) {
    Args.memberId(id);
    String ttlMs = Args.ttlMillis(ttl);
    return redis.runForFlag("renew member " + id + " in " + pool, Scripts.RENEW_MEMBER,
        new String[] {RedisKeys.members(pool)}, id, Long.toString(session), ttlMs);
  }

  @Override
  public boolean update(String id, long session, MemberMeta meta) {
    Args.memberId(id);
    Objects.requireNonNull(meta, "meta");
    return redis.runForFlag("update member " + id + " in " + pool, Scripts.UPDATE_MEMBER,
        new String[] {RedisKeys.members(pool)}, id, Long.toString(session), Integer.toString(meta.affinity()),
        Integer.toString(meta.capacity()), channel(), attributesPart(meta));
  }

  @Override
  public void deregister(String id, long session) {
    Args.memberId(id);
    String[] keys = redis.sameSlot("deregister from pool '" + pool + "'", pool, pool, RedisKeys.members(pool));
    redis.runForFlag("deregister " + id + " from " + pool, Scripts.DEREGISTER, keys, id, Long.toString(session),
        channel(), "");
  }

  @Override
  public boolean removeIfExpired(String id, long session) {
    Args.memberId(id);
    String[] keys = redis.sameSlot("remove from pool '" + pool + "'", pool, pool, RedisKeys.members(pool));
    return redis.runForFlag("remove expired " + id + " from " + pool, Scripts.DEREGISTER, keys, id,
        Long.toString(session), channel(), marginArg());
  }

  @Override
  public Map<String, MemberRecord> members() {
    return redis.records("registration", RedisKeys.members(pool), RedisMembership::parse);
  }

  private String channel() {
    return Topic.members(pool).channel();
  }

  /** What follows {@code leaseUntilMillis} in a record: '' without attributes, else {@code "|" + encoded}. */
  static String attributesPart(MemberMeta meta) {
    return meta.attributes().isEmpty() ? "" : "|" + meta.encodeAttributes();
  }

  /**
   * Parses {@code "affinity|capacity|session|leaseUntilMillis[|attributes]"}.
   *
   * @return the record, or null if malformed
   */
  static MemberRecord parse(String id, String value) {
    String[] p = value.split("\\|", -1);
    if (p.length != 4 && p.length != 5) {
      return null;
    }
    try {
      MemberMeta meta = new MemberMeta(Integer.parseInt(p[0]), Integer.parseInt(p[1]),
          MemberMeta.decodeAttributes(p.length == 5 ? p[4] : ""));
      return new MemberRecord(id, meta, Long.parseLong(p[2]), Long.parseLong(p[3]));
    } catch (IllegalArgumentException e) { // NumberFormatException included
      return null;
    }
  }
}
