package io.allot.cli.dev;

import io.allot.server.distributor.PoolDistributor;
import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Prints each table a distributor of {@code allot dev} publishes: a header (time, epoch, pool, how many members are
 * down), then one line per member with its units. Thread-safe (one print at a time).
 */
final class TablePrinter {
  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
  private static final int MAX_UNITS_CHARS = 70;

  private final PrintStream out;
  private final Function<String, List<String>> listedMembers; // pool -> members listed for it (ping-only), else empty

  TablePrinter(PrintStream out, Function<String, List<String>> listedMembers) {
    this.out = out;
    this.listedMembers = listedMembers;
  }

  /** Prints {@code p}, published for {@code pool}. */
  synchronized void print(String pool, PoolDistributor.Published p) {
    out.printf("%n%s  epoch %d  table of %s (%s):%n", LocalTime.now().format(TIME), p.epoch(), pool,
        p.down().isEmpty() ? "all members up" : p.down().size() + " down");
    Map<String, List<String>> byMember = p.table().byMember();
    TreeSet<String> members = new TreeSet<>(byMember.keySet());
    members.addAll(p.down());
    members.addAll(listedMembers.apply(pool));
    for (String m : members) {
      List<String> units = byMember.get(m);
      String state = p.down().contains(m) ? "DOWN" : units == null ? "not answering yet" : units.size() + " units";
      String list = units == null ? "" : String.join(",", units);
      out.printf("  %-16s %-18s %s%n", m, state,
          list.length() > MAX_UNITS_CHARS ? list.substring(0, MAX_UNITS_CHARS) + "..." : list);
    }
    out.flush();
  }
}
