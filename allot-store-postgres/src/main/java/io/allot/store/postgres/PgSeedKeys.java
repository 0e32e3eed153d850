package io.allot.store.postgres;

import io.allot.store.SeedKeys;
import io.allot.store.Topic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link SeedKeys} on the tables {@code keys} (each existing list or hash and its kind: Redis' one keyspace),
 * {@code list_items} and {@code hash_fields}. List writes are functions ({@code add_to_list}, ...) that announce the
 * change on {@link Topic#key(String)} in their own transaction; reads are plain statements. Immutable.
 */
final class PgSeedKeys implements SeedKeys {
  private final PgJdbc db;
  private final PgChannels channels;
  private final String list;
  private final String hash;
  private final String hashField;
  private final String addToList;
  private final String removeFromList;
  private final String replaceList;

  /** {@code s}: the quoted schema. */
  PgSeedKeys(PgJdbc db, PgChannels channels, String s) {
    this.db = db;
    this.channels = channels;
    list = "SELECT k.kind, i.value FROM " + s + ".keys k LEFT JOIN " + s + ".list_items i ON i.key = k.key "
        + "WHERE k.key = ? ORDER BY i.pos";
    hash = "SELECT k.kind, h.field, h.value FROM " + s + ".keys k LEFT JOIN " + s + ".hash_fields h "
        + "ON h.key = k.key WHERE k.key = ?";
    hashField = "SELECT k.kind, h.value FROM " + s + ".keys k LEFT JOIN " + s + ".hash_fields h "
        + "ON h.key = k.key AND h.field = ? WHERE k.key = ?";
    addToList = "SELECT " + s + ".add_to_list(?, ?, ?, ?)";
    removeFromList = "SELECT " + s + ".remove_from_list(?, ?, ?, ?)";
    replaceList = "SELECT " + s + ".replace_list(?, ?, ?, ?)";
  }

  @Override
  public List<String> list(String key) {
    Objects.requireNonNull(key, "key");
    return db.query("read list " + key, list, rs -> {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        checkKind(key, rs.getString(1), "list");
        String v = rs.getString(2);
        if (v != null) {
          out.add(v);
        }
      }
      return List.copyOf(out);
    }, key);
  }

  @Override
  public boolean addToList(String key, String value) {
    return changeList("add to list ", addToList, "lpush", key, value);
  }

  @Override
  public boolean removeFromList(String key, String value) {
    return changeList("remove from list ", removeFromList, "lrem", key, value);
  }

  /** Runs {@code statement} (add or remove {@code value}) with the key's notification {@code event}. */
  private boolean changeList(String what, String statement, String event, String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    PgChannels.Note note = channels.note(Topic.key(key), event);
    return db.query(what + key, statement, PgJdbc.BOOLEAN, key, value, note.pgChannel(), note.payload());
  }

  @Override
  public void replaceList(String key, List<String> values) {
    Objects.requireNonNull(key, "key");
    String[] array = values.toArray(new String[0]);
    for (String v : array) {
      Objects.requireNonNull(v, "list values must not be null");
    }
    PgChannels.Note note = channels.note(Topic.key(key), "replace");
    db.query("replace list " + key, replaceList, PgJdbc.NOTHING, key, array, note.pgChannel(), note.payload());
  }

  @Override
  public Map<String, String> hash(String key) {
    Objects.requireNonNull(key, "key");
    return db.query("read hash " + key, hash, rs -> {
      Map<String, String> out = new LinkedHashMap<>();
      while (rs.next()) {
        checkKind(key, rs.getString(1), "hash");
        String f = rs.getString(2);
        if (f != null) {
          out.put(f, rs.getString(3));
        }
      }
      return Map.copyOf(out);
    }, key);
  }

  @Override
  public String hashField(String key, String field) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(field, "field");
    return db.query("read hash field of " + key, hashField, rs -> {
      if (!rs.next()) {
        return null;
      }
      checkKind(key, rs.getString(1), "hash");
      return rs.getString(2);
    }, field, key);
  }

  private static void checkKind(String key, String kind, String wanted) {
    if (!wanted.equals(kind)) {
      throw new IllegalStateException("WRONGTYPE: key '" + key + "' holds a " + kind + ", not a " + wanted);
    }
  }
}
