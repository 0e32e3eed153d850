package io.allot.core.assign;

import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The original distributor's storage layout for a table: a hash {@code member -> "u1,u2"}, and
 * the text form {@code member:u1,u2} used by the CLI. Units cannot contain {@code ','} there.
 */
public final class SeedLayout {
  private SeedLayout() {}

  /** Rejects a unit the seed layout cannot store. */
  public static String checkUnit(String unit) {
    Names.checkUnit(unit);
    if (unit.indexOf(',') >= 0) {
      throw new IllegalArgumentException(
          "unit " + Names.quote(unit) + " contains ',', which the distribution hash uses to separate units");
    }
    return unit;
  }

  /** Joins units with {@code ','}; rejects a unit that contains one. */
  public static String join(List<String> units) {
    if (units.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (String u : units) {
      checkUnit(u);
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(u);
    }
    return b.toString();
  }

  /** Splits a distribution-hash value into units; the empty string is no units. */
  public static List<String> split(String value) {
    List<String> out = new ArrayList<>();
    if (value == null || value.isEmpty()) {
      return out;
    }
    int from = 0;
    while (true) {
      int i = value.indexOf(',', from);
      String u = i < 0 ? value.substring(from) : value.substring(from, i);
      if (!u.isEmpty()) {
        out.add(u);
      }
      if (i < 0) {
        return out;
      }
      from = i + 1;
    }
  }

  /**
   * Parses a distribution hash ({@code member -> "u1,u2"}) into a table. A unit listed under two
   * members is kept by the first member in byte order (a corrupt hash must not stop the
   * distributor); the rest are reported by {@code onConflict}.
   */
  public static Table parseHash(Map<String, String> hash, java.util.function.Consumer<String> onConflict) {
    java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>(Names.BYTE_ORDER);
    sorted.putAll(hash);
    Set<String> seen = new java.util.HashSet<>();
    Table.Builder b = Table.builder();
    sorted.forEach(
        (m, v) -> {
          List<String> units = new ArrayList<>();
          for (String u : split(v)) {
            if (seen.add(u)) {
              units.add(u);
            } else {
              onConflict.accept("unit " + Names.quote(u) + " listed twice; dropped from " + Names.quote(m));
            }
          }
          b.put(m, units);
        });
    return b.build();
  }

  /**
   * Parses the text form, one {@code member:u1,u2} line per member; blank lines and lines starting
   * with {@code #} are skipped. A member id may itself contain {@code ':'} (it is usually {@code
   * host:port}): if a prefix of the line up to a {@code ':'} is one of {@code knownMembers}, the
   * longest such prefix is the member; otherwise the member ends at the last {@code ':'} before
   * the first {@code ','}.
   *
   * @throws IllegalArgumentException naming the line number and the problem
   */
  public static Table parseText(List<String> lines, Set<String> knownMembers) {
    Table.Builder b = Table.builder();
    Set<String> membersSeen = new LinkedHashSet<>();
    int lineNo = 0;
    for (String raw : lines) {
      lineNo++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int sep = -1;
      for (int i = line.indexOf(':'); i >= 0; i = line.indexOf(':', i + 1)) {
        if (knownMembers.contains(line.substring(0, i))) {
          sep = i;
        }
      }
      if (sep < 0) {
        int comma = line.indexOf(',');
        String head = comma < 0 ? line : line.substring(0, comma);
        sep = head.lastIndexOf(':');
      }
      if (sep <= 0) {
        throw new IllegalArgumentException(
            "line " + lineNo + ": expected 'member:unit1,unit2' but got " + Names.quote(raw));
      }
      String member = line.substring(0, sep);
      if (!membersSeen.add(member)) {
        throw new IllegalArgumentException("line " + lineNo + ": member " + Names.quote(member) + " appears twice");
      }
      b.put(member, split(line.substring(sep + 1)));
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("previous table: " + e.getMessage(), e);
    }
  }
}
