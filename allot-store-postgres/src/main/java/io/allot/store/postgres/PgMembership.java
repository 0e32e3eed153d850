package io.allot.store.postgres;

import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Topic;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@link Membership} of one pool on the tables {@code pools} (the pool's counter: sessions and tokens; its lost-state
 * guard) and {@code members} (one row per member id, expired ones included, with affinity, capacity and the
 * attributes as {@link MemberMeta#encodeAttributes()} wrote them). Register, update, deregister and remove-if-expired
 * are functions that NOTIFY {@link Topic#members(String)} in their transaction; renew is a function that locks the
 * row, then tests the lease (no notification). A cheap, immutable view ({@code pool()} is the record's): the
 * statements, with the store's guard and clock margin, are built once per store.
 */
record PgMembership(PgJdbc db, PgChannels channels, Statements sql, String pool) implements Membership {

  /** The statements, for one schema. */
  static final class Statements {
    final String register;
    final String renew;
    final String update;
    final String deregister;
    final String removeIfExpired;
    final String members;
    final long guardMs;
    final long marginMs;

    /** {@code s}: the quoted schema; the store's lost-state guard and clock margin. */
    Statements(String s, Duration guard, Duration margin) {
      guardMs = guard.toMillis();
      marginMs = margin.toMillis();
      register = "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
      renew = "SELECT " + s + ".renew_member(?, ?, ?, ?)";
      update = "SELECT " + s + ".update_member(?, ?, ?, ?, ?, ?, ?, ?)";
      deregister = "SELECT " + s + ".deregister(?, ?, ?, ?, ?)";
      removeIfExpired = "SELECT " + s + ".deregister(?, ?, ?, ?, ?, ?)";
      // lease_until rounded up to the millisecond, timeMillis rounded down: a caller that saw a lease expired
      // (leaseUntilMillis <= timeMillis) never sees the store honour it a moment later
      members = "SELECT id, affinity, capacity, attributes, session, "
          + "ceil(extract(epoch FROM lease_until) * 1000)::bigint FROM " + s + ".members WHERE pool = ?";
    }
  }

  @Override
  public long register(String id, MemberMeta meta, Duration ttl) {
    checkId(id);
    Objects.requireNonNull(meta, "meta");
    long ttlMs = PgLeadership.ttlMillis(ttl);
    PgChannels.Note note = channels.note(Topic.members(pool), id);
    try {
      return db.query("register " + id + " in " + pool, sql.register, PgJdbc.LONG, pool, id, meta.affinity(),
          meta.capacity(), ttlMs, note.pgChannel(), note.payload(), meta.encodeAttributes(), sql.guardMs,
          sql.marginMs);
    } catch (PgJdbc.LiveMember e) {
      throw new MemberConflictException(pool, id, e.liveUntilMillis());
    }
  }

  @Override
  public boolean renew(String id, long session, Duration ttl) {
    checkId(id);
    long ttlMs = PgLeadership.ttlMillis(ttl);
    return db.query("renew member " + id + " in " + pool, sql.renew, PgJdbc.BOOLEAN, pool, id, session, ttlMs);
  }

  @Override
  public boolean update(String id, long session, MemberMeta meta) {
    checkId(id);
    Objects.requireNonNull(meta, "meta");
    PgChannels.Note note = channels.note(Topic.members(pool), id);
    return db.query("update member " + id + " in " + pool, sql.update, PgJdbc.BOOLEAN, pool, id, session,
        meta.affinity(), meta.capacity(), note.pgChannel(), note.payload(), meta.encodeAttributes());
  }

  @Override
  public void deregister(String id, long session) {
    checkId(id);
    PgChannels.Note note = channels.note(Topic.members(pool), id);
    db.query("deregister " + id + " from " + pool, sql.deregister, PgJdbc.NOTHING, pool, id, session,
        note.pgChannel(), note.payload());
  }

  @Override
  public boolean removeIfExpired(String id, long session) {
    checkId(id);
    PgChannels.Note note = channels.note(Topic.members(pool), id);
    return db.query("remove expired " + id + " from " + pool, sql.removeIfExpired, PgJdbc.BOOLEAN, pool, id,
        session, note.pgChannel(), note.payload(), sql.marginMs);
  }

  @Override
  public Map<String, MemberRecord> members() {
    return db.query("read members of " + pool, sql.members, rs -> {
      Map<String, MemberRecord> out = new LinkedHashMap<>();
      while (rs.next()) {
        String id = rs.getString(1);
        MemberMeta meta = new MemberMeta(rs.getInt(2), rs.getInt(3), MemberMeta.decodeAttributes(rs.getString(4)));
        out.put(id, new MemberRecord(id, meta, rs.getLong(5), rs.getLong(6)));
      }
      return out;
    }, pool);
  }

  /**
   * Checks a member id: not null, not empty.
   *
   * @throws IllegalArgumentException if it is empty
   */
  static void checkId(String id) {
    Objects.requireNonNull(id, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("member id is empty");
    }
  }
}
