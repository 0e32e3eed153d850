package io.allot.core.assign;

import io.allot.core.model.Names;
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

  /** Rejects a unit the seed layout cannot store: {@link TableCodec#checkUnit}. */
  public static String checkUnit(String unit) {
    return TableCodec.checkUnit(unit);
  }

  /**
   * Parses a distribution hash ({@code member -> "u1,u2"}) into a table: decoded by {@link TableCodec#decode(Map)};
   * a unit listed twice is kept by the first member in byte order (a corrupt hash must not stop the distributor),
   * the rest are reported by {@code onConflict} ({@link TableCodec#withoutDuplicates}).
   */
  public static Table parseHash(Map<String, String> hash, java.util.function.Consumer<String> onConflict) {
    return fromUnits(TableCodec.decode(hash), onConflict);
  }

  /**
   * A table from decoded fields (member to units, as {@code Tables.units} reads them): a unit listed twice is kept by
   * the first member in byte order, the rest are reported by {@code onConflict} ({@link
   * TableCodec#withoutDuplicates}).
   */
  public static Table fromUnits(Map<String, List<String>> units, java.util.function.Consumer<String> onConflict) {
    Table.Builder b = Table.builder();
    TableCodec.withoutDuplicates(units, onConflict).forEach(b::put);
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
      b.put(member, TableCodec.decode(line.substring(sep + 1)));
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("previous table: " + e.getMessage(), e);
    }
  }
}
