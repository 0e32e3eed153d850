package io.allot.store.redis;

import java.util.List;

/**
 * The index of {@link RedisStore}'s Lua scripts (the Lua itself, each file documenting its KEYS, ARGV and reply, is
 * under {@code src/main/resources/io/allot/store/redis/lua/}: see {@link Script}). Every script names all its keys
 * in KEYS (same slot in Cluster, see {@link RedisKeys}); values, and the channels a script PUBLISHes on (a channel is
 * not a key: PUBLISH from a script is fine in Cluster), travel in ARGV. {@link #ALL} are {@code SCRIPT LOAD}ed at
 * connect ({@link RedisConnection}).
 */
final class Scripts {
  private Scripts() {}

  // ---------------------------------------------------------------- lists (RedisSeedKeys): KEYS the list

  /** LPUSH if absent, PUBLISH. */
  static final Script ADD_IF_ABSENT = Script.load("lists/add_if_absent.lua");
  /** LREM every occurrence, PUBLISH. */
  static final Script REMOVE_FROM_LIST = Script.load("lists/remove.lua");
  /** DEL, RPUSH in chunks, PUBLISH. */
  static final Script REPLACE_LIST = Script.load("lists/replace.lua");

  // ---------------------------------------------------------------- leases (RedisLeadership): KEYS lease [, token]

  /** A new token from the lease's counter if the lease is free. */
  static final Script ACQUIRE = Script.load("leases/acquire.lua");
  /** PEXPIRE if still held. */
  static final Script RENEW = Script.load("leases/renew.lua");
  /** Compare-and-delete. */
  static final Script RELEASE = Script.load("leases/release.lua");

  // ---------------------------------------------------------------- tables (RedisTables)

  /** KEYS hash, epoch, the pool's fields, owners, lease, marks (tables/prelude.lua). */
  private static final String TABLES = "tables/prelude.lua";
  /** The full publication. */
  static final Script PUBLISH = Script.load("tables/publish.lua", TABLES);
  /** The incremental publication (changed and dropped fields), if the pool's mark matches. */
  static final Script PUBLISH_CHANGES = Script.load("tables/publish_changes.lua", TABLES);

  // ---------------------------------------------------------------- pools (RedisMembership, RedisOwnership)

  /** Records, clock margin, lost-state guard (membership/prelude.lua). */
  private static final String MEMBERSHIP = "membership/prelude.lua";
  /** KEYS services list, members, counter, guard. */
  static final Script REGISTER = Script.load("membership/register.lua", MEMBERSHIP);
  /** KEYS members. */
  static final Script RENEW_MEMBER = Script.load("membership/renew.lua", MEMBERSHIP);
  /** KEYS members. */
  static final Script UPDATE_MEMBER = Script.load("membership/update.lua", MEMBERSHIP);
  /** KEYS services list, members; deregister and removeIfExpired. */
  static final Script DEREGISTER = Script.load("membership/deregister.lua", MEMBERSHIP);
  /** KEYS members, ownership, counter, guard. */
  static final Script CLAIM_ALL = Script.load("membership/claim_all.lua", MEMBERSHIP);
  /** KEYS ownership, holds. */
  static final Script RELEASE_UNIT = Script.load("membership/release_unit.lua", MEMBERSHIP);
  /** KEYS ownership. */
  static final Script RELEASE_ALL = Script.load("membership/release_all.lua", MEMBERSHIP);
  /** KEYS members, ownership, counter, guard. */
  static final Script HAND_OFF = Script.load("membership/hand_off.lua", MEMBERSHIP);
  /** KEYS holds. */
  static final Script HOLDS = Script.load("membership/holds.lua", MEMBERSHIP);
  /** KEYS members, ownership. */
  static final Script VALID_TOKEN = Script.load("membership/valid_token.lua", MEMBERSHIP);

  /** Every script of this index, for preloading. */
  static final List<Script> ALL = List.of(ADD_IF_ABSENT, REMOVE_FROM_LIST, REPLACE_LIST, ACQUIRE, RENEW, RELEASE,
      PUBLISH, PUBLISH_CHANGES, REGISTER, RENEW_MEMBER, UPDATE_MEMBER, DEREGISTER, CLAIM_ALL, RELEASE_UNIT, RELEASE_ALL,
      HAND_OFF, HOLDS, VALID_TOKEN);
}
