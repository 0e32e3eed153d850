package io.allot.store.postgres;

import io.allot.store.RouteWeights;
import io.allot.store.Topic;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@link RouteWeights} of one pool on the tables {@code route_weights} (the pool's rows: version, weight) and
 * {@code route_weight_revisions} (schema version 10). A set is one call of {@code set_route_weights}
 * ({@code functions.sql}): it bumps the pool's revision (locking its row), replaces the rows and NOTIFYs
 * {@link Topic#routeWeights(String)} with the revision, in one transaction. A read is one SELECT. Weights that
 * releases before schema version 10 kept as the table {@code allot-route:<pool>} were copied by that migration. A
 * cheap, immutable view: the statements are built once per store.
 */
record PgRouteWeights(PgJdbc db, PgChannels channels, Statements sql, String pool) implements RouteWeights {

  /** The statements, for one schema. */
  static final class Statements {
    final String set;
    final String read;
    final String revision;

    /** {@code s}: the quoted schema. */
    Statements(String s) {
      set = "SELECT " + s + ".set_route_weights(?, ?, ?, ?, ?)";
      read = "SELECT version, weight FROM " + s + ".route_weights WHERE pool = ?";
      revision = "SELECT coalesce((SELECT revision FROM " + s + ".route_weight_revisions WHERE pool = ?), 0)";
    }
  }

  @Override
  public long set(java.util.Map<String, Integer> weights) {
    SortedMap<String, Integer> checked = RouteWeights.check(weights);
    String[] versions = checked.keySet().toArray(new String[0]);
    Long[] values = checked.values().stream().map(Integer::longValue).toArray(Long[]::new);
    PgChannels.Note note = channels.noteForLong(Topic.routeWeights(pool));
    return db.query("set route weights of " + pool, sql.set, PgJdbc.LONG, pool, versions, values, note.pgChannel(),
        note.payload());
  }

  @Override
  public long revision() {
    return db.query("read the route weights revision of " + pool, sql.revision, PgJdbc.LONG, pool);
  }

  @Override
  public SortedMap<String, Integer> read() {
    return db.query("read route weights of " + pool, sql.read, rs -> {
      TreeMap<String, Integer> out = new TreeMap<>();
      while (rs.next()) {
        out.put(rs.getString(1), rs.getInt(2));
      }
      return Collections.unmodifiableSortedMap(out);
    }, pool);
  }
}
