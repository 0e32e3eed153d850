package io.allot.store.postgres;

import io.allot.store.Handoff;
import io.allot.store.Ownership;
import io.allot.store.Topic;
import io.allot.store.UnitHold;
import io.allot.store.UnitOwner;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@link Ownership} of one pool on the tables {@code ownership} (one row per unit: member, session, token; a row whose
 * owner is superseded or expired by the clock margin is claimable) and {@code holds}. Claims are the function
 * {@code claim_all} ({@code claim} is it for one unit): units another live session holds are refused without a lock,
 * the rest decided under the pool's row lock and its lost-state guard, tokens from the pool's counter); releases are
 * the functions {@code release_unit}, which records the hold, if any, and {@code release_units} (a batch, one
 * transaction), each NOTIFYing {@link Topic#releases(String)} per unit; reads are plain statements. A cheap, immutable view ({@code pool()} is the
 * record's): the statements, with the store's guard and clock margin, are built once per store.
 */
record PgOwnership(PgJdbc db, PgChannels channels, Statements sql, String pool) implements Ownership {

  /** The statements, for one schema. */
  static final class Statements {
    final String claim;
    final String claimAll;
    final String release;
    final String releaseAll;
    final String handOff;
    final String holds;
    final String owners;
    final String ownersOf;
    final String validToken;
    final long guardMs;
    final long marginMs;

    /** {@code s}: the quoted schema; the store's lost-state guard and clock margin. */
    Statements(String s, Duration guard, Duration margin) {
      guardMs = guard.toMillis();
      marginMs = margin.toMillis();
      claim = "SELECT " + s + ".claim(?, ?, ?, ?, ?, ?)";
      claimAll = "SELECT " + s + ".claim_all(?, ?, ?, ?, ?, ?)";
      release = "SELECT " + s + ".release_unit(?, ?, ?, ?, ?, ?, ?)";
      releaseAll = "SELECT " + s + ".release_units(?, ?, ?, ?, ?, ?)";
      handOff = "SELECT " + s + ".hand_off_units(?, ?, ?, ?, ?, ?, ?, ?, ?)";
      // the end rounded down to the ms, so a hold read right after the release never ends later than asked;
      // holds whose time has run out are deleted on the way
      holds = "WITH stale AS (DELETE FROM " + s + ".holds WHERE pool = ? AND until <= clock_timestamp()) "
          + "SELECT unit, member, floor(extract(epoch FROM until) * 1000)::bigint FROM " + s + ".holds "
          + "WHERE pool = ? AND until > clock_timestamp()";
      owners = "SELECT unit, member, session, token FROM " + s + ".ownership WHERE pool = ?";
      ownersOf = owners + " AND unit = ANY (?)";
      validToken = "SELECT EXISTS (SELECT 1 FROM " + s + ".ownership o JOIN " + s + ".members m "
          + "ON m.pool = o.pool AND m.id = o.member AND m.session = o.session "
          + "WHERE o.pool = ? AND o.unit = ? AND o.member = ? AND o.session = ? AND o.token = ? "
          + "AND m.lease_until > clock_timestamp())";
    }
  }

  @Override
  public OptionalLong claim(String unit, String member, long session) {
    PgMembership.checkId(member);
    Objects.requireNonNull(unit, "unit");
    return db.query("claim " + unit + " in " + pool, sql.claim, rs -> {
      rs.next();
      long token = rs.getLong(1);
      return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(token);
    }, pool, unit, member, session, sql.guardMs, sql.marginMs);
  }

  @Override
  public Map<String, Long> claimAll(List<String> units, String member, long session) {
    PgMembership.checkId(member);
    Map<String, Long> out = new LinkedHashMap<>();
    if (units.isEmpty()) {
      return out;
    }
    String[] array = units.toArray(new String[0]);
    for (String u : array) {
      Objects.requireNonNull(u, "unit");
    }
    return db.query("claim " + array.length + " units in " + pool, sql.claimAll, rs -> {
      rs.next();
      Object[] tokens = (Object[]) rs.getArray(1).getArray();
      for (int i = 0; i < array.length; i++) {
        if (tokens[i] != null) {
          out.put(array[i], ((Number) tokens[i]).longValue());
        }
      }
      return out;
    }, pool, array, member, session, sql.guardMs, sql.marginMs);
  }

  @Override
  public boolean release(String unit, String member, long token) {
    return release(unit, member, token, Duration.ZERO);
  }

  @Override
  public boolean release(String unit, String member, long token, Duration hold) {
    PgMembership.checkId(member);
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(hold, "hold");
    if (hold.isNegative()) {
      throw new IllegalArgumentException("hold must be >= 0 but was " + hold);
    }
    PgChannels.Note note = channels.note(Topic.releases(pool), unit);
    return db.query("release " + unit + " in " + pool, sql.release, PgJdbc.BOOLEAN, pool, unit, member, token,
        note.pgChannel(), note.payload(), hold.toMillis());
  }

  @Override
  public Set<String> releaseAll(Map<String, Long> tokens, String member) {
    PgMembership.checkId(member);
    Set<String> out = new LinkedHashSet<>();
    if (tokens.isEmpty()) {
      return out;
    }
    int n = tokens.size();
    String[] units = new String[n];
    Long[] values = new Long[n];
    String[] payloads = new String[n];
    String channel = null;
    int i = 0;
    for (Map.Entry<String, Long> e : tokens.entrySet()) {
      units[i] = Objects.requireNonNull(e.getKey(), "unit");
      values[i] = Objects.requireNonNull(e.getValue(), "token");
      PgChannels.Note note = channels.note(Topic.releases(pool), units[i]);
      channel = note.pgChannel();
      payloads[i++] = note.payload();
    }
    Set<String> released = db.query("release " + n + " units in " + pool, sql.releaseAll, rs -> {
      rs.next();
      Set<String> got = new HashSet<>();
      for (Object u : (Object[]) rs.getArray(1).getArray()) {
        got.add((String) u);
      }
      return got;
    }, pool, units, member, values, channel, payloads);
    for (String u : units) {
      if (released.contains(u)) {
        out.add(u);
      }
    }
    return out;
  }

  @Override
  public Set<String> handOffAll(List<Handoff> handoffs, String member) {
    PgMembership.checkId(member);
    Set<String> out = new LinkedHashSet<>();
    if (handoffs.isEmpty()) {
      return out;
    }
    int n = handoffs.size();
    String[] units = new String[n];
    Long[] tokens = new Long[n];
    String[] to = new String[n];
    String[] payloads = new String[n];
    Topic topic = Topic.releases(pool);
    for (int i = 0; i < n; i++) {
      Handoff h = handoffs.get(i);
      units[i] = h.unit();
      tokens[i] = h.token();
      to[i] = h.to();
      payloads[i] = channels.note(topic, h.unit()).payload();
      if (h.to() != null) { // the longest grant message this unit can get must fit NOTIFY
        channels.note(topic, Handoff.grantMessage(new UnitOwner(h.unit(), h.to(), Long.MAX_VALUE, Long.MAX_VALUE)));
      }
    }
    PgChannels.Note prefix = channels.note(topic, "");
    Set<String> released = db.query("hand off " + n + " units in " + pool, sql.handOff, rs -> {
      rs.next();
      Set<String> got = new HashSet<>();
      for (Object u : (Object[]) rs.getArray(1).getArray()) {
        got.add((String) u);
      }
      return got;
    }, pool, units, member, tokens, to, prefix.pgChannel(), payloads, prefix.payload(), sql.guardMs);
    for (String u : units) {
      if (released.contains(u)) {
        out.add(u);
      }
    }
    return out;
  }

  @Override
  public Map<String, UnitHold> holds() {
    return db.query("read holds of " + pool, sql.holds, rs -> {
      Map<String, UnitHold> out = new LinkedHashMap<>();
      while (rs.next()) {
        String unit = rs.getString(1);
        out.put(unit, new UnitHold(unit, rs.getString(2), rs.getLong(3)));
      }
      return out;
    }, pool, pool);
  }

  @Override
  public Map<String, UnitOwner> owners() {
    return db.query("read owners of " + pool, sql.owners, PgOwnership::unitOwners, pool);
  }

  @Override
  public Map<String, UnitOwner> ownersOf(Collection<String> units) {
    String[] array = units.toArray(new String[0]);
    for (String u : array) {
      Objects.requireNonNull(u, "unit");
    }
    if (array.length == 0) {
      return Map.of();
    }
    return db.query("read owners of " + array.length + " units in " + pool, sql.ownersOf, PgOwnership::unitOwners,
        pool, array);
  }

  private static Map<String, UnitOwner> unitOwners(ResultSet rs) throws SQLException {
    Map<String, UnitOwner> out = new LinkedHashMap<>();
    while (rs.next()) {
      String unit = rs.getString(1);
      out.put(unit, new UnitOwner(unit, rs.getString(2), rs.getLong(3), rs.getLong(4)));
    }
    return out;
  }

  @Override
  public boolean validToken(String unit, String member, long session, long token) {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(member, "member");
    return db.query("check token of " + unit + " in " + pool, sql.validToken, PgJdbc.BOOLEAN, pool, unit, member,
        session, token);
  }
}
