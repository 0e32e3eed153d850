package io.allot.core.assign;

import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The one encoding of an assignment table's fields: the original Go distributor's distribution hash, field = member
 * id, value = the member's units joined with {@code ','} ({@code "u1,u2"}; {@code ""} = no units). External readers
 * (the original workers) depend on this layout, so it never changes. Every writer encodes with {@link #encode} and
 * every reader decodes with {@link #decode}, through the store's {@code Tables} role ({@code Tables.units}), which
 * uses this class as its only decoder; nothing else splits a field.
 *
 * <p>The rules:
 * <ul>
 *   <li>A unit is a non-empty name without {@code ','} ({@link #checkUnit}); {@link #encode} rejects any other, so
 *       {@code decode(encode(units))} is {@code units} for every list of valid units.</li>
 *   <li>{@link #decode} splits at every {@code ','} and drops empty pieces: a missing or empty field is no units,
 *       {@code "a,,b,"} is {@code [a, b]}. It does not trim: a unit may begin or end with a space (names allow it),
 *       and {@code " a"} is a unit of its own, not {@code "a"}.</li>
 *   <li>A unit listed twice (under two members, or twice in one field: a table being rewritten by two pools, or a
 *       hand-edited hash) is kept once by {@link #withoutDuplicates}: by the first member in byte order
 *       ({@link Names#BYTE_ORDER}), at its first place in that member's field. Readers that need one owner per unit
 *       apply it; {@link #decode} itself returns the fields as they are.</li>
 * </ul>
 *
 * <p>It lives in allot-core, which has no dependencies, so that the assignment code ({@link Table}, {@link
 * SeedLayout}) and the store's {@code Tables} role (allot-store depends on allot-core) share this one implementation.
 */
public final class TableCodec {
  private TableCodec() {}

  /** The separator of units in a field. */
  public static final char SEPARATOR = ',';

  /**
   * Checks a unit the layout can store: not null, not empty, no {@code ','}.
   *
   * @return the unit
   * @throws IllegalArgumentException naming the unit and the problem
   */
  public static String checkUnit(String unit) {
    Names.checkUnit(unit);
    if (unit.indexOf(SEPARATOR) >= 0) {
      throw new IllegalArgumentException(
          "unit " + Names.quote(unit) + " contains ',', which the distribution hash uses to separate units");
    }
    return unit;
  }

  /**
   * The field of a member with {@code units}: joined with {@code ','}, in order; {@code ""} for none.
   *
   * @throws IllegalArgumentException naming the first unit {@link #checkUnit} rejects
   */
  public static String encode(List<String> units) {
    if (units.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (String u : units) {
      checkUnit(u);
      if (b.length() > 0) {
        b.append(SEPARATOR);
      }
      b.append(u);
    }
    return b.toString();
  }

  /**
   * The units of a field, in order: split at every {@code ','}, empty pieces dropped, nothing trimmed; null or
   * {@code ""} is no units. Unmodifiable.
   */
  public static List<String> decode(String field) {
    if (field == null || field.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    int from = 0;
    while (true) {
      int i = field.indexOf(SEPARATOR, from);
      String u = i < 0 ? field.substring(from) : field.substring(from, i);
      if (!u.isEmpty()) {
        out.add(u);
      }
      if (i < 0) {
        return Collections.unmodifiableList(out);
      }
      from = i + 1;
    }
  }

  /**
   * Every field of a table decoded ({@link #decode(String)}): member to its units, members in byte order, a member
   * with an empty field listed with no units. Unmodifiable.
   */
  public static Map<String, List<String>> decode(Map<String, String> fields) {
    TreeMap<String, List<String>> out = new TreeMap<>(Names.BYTE_ORDER);
    fields.forEach((member, field) -> out.put(member, decode(field)));
    return Collections.unmodifiableMap(out);
  }

  /**
   * {@code table} with every unit listed once: a unit listed again (under a later member in byte order, or later in
   * the same field) is dropped there and reported to {@code onConflict} (a message naming the unit and the member).
   * Members keep their place in byte order, units their order. Unmodifiable.
   */
  public static Map<String, List<String>> withoutDuplicates(Map<String, List<String>> table,
      Consumer<String> onConflict) {
    TreeMap<String, List<String>> sorted = new TreeMap<>(Names.BYTE_ORDER);
    sorted.putAll(table);
    Set<String> seen = new HashSet<>();
    Map<String, List<String>> out = new LinkedHashMap<>();
    sorted.forEach((m, units) -> {
      List<String> kept = new ArrayList<>(units.size());
      for (String u : units) {
        if (seen.add(u)) {
          kept.add(u);
        } else {
          onConflict.accept("unit " + Names.quote(u) + " listed twice; dropped from " + Names.quote(m));
        }
      }
      out.put(m, Collections.unmodifiableList(kept));
    });
    return Collections.unmodifiableMap(out);
  }
}
