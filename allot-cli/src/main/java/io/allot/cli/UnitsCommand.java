package io.allot.cli;

import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.tasks.TaskSpecs;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot units add|remove|list}: the units list (the server's {@code -workunits-namespace}) on any store,
 * through the store's {@link SeedKeys} role: each add and remove is one atomic store operation, the same on memory,
 * Redis and PostgreSQL. Every unit named is checked before anything is written ({@link #checkUnits}).
 */
@Command(
    name = "units",
    description = {
      "Adds, removes and lists the units of the units list, on any store.",
      "The units list (the server's -workunits-namespace) feeds every pool of the server that has no long-running "
          + "tasks; a pool with tasks takes its units from them instead, so 'units add' refuses such a pool. On "
          + "Redis the list is the plain list the original distributor reads (redis-cli rpush works too).",
      "Exit codes: 0 done, 2 bad input (named; nothing written) or an unreachable store."
    },
    subcommands = {UnitsCommand.Add.class, UnitsCommand.Remove.class, UnitsCommand.ListUnits.class})
final class UnitsCommand extends ParentCommand {
  /** The longest unit name this command writes. */
  static final int MAX_UNIT_CHARS = 200;

  /** The options every units subcommand takes: the store, the pool whose units these are, the units list. */
  static final class UnitsOptions extends PoolOptions {
    @Option(names = {"-workunits-namespace", "--workunits-namespace"}, paramLabel = "KEY",
        defaultValue = "sys-channels",
        description = "The units list key (the server's -workunits-namespace). Default ${DEFAULT-VALUE}.")
    String key;
  }

  /**
   * Checks the units named on the command line: each non-empty, at most {@value #MAX_UNIT_CHARS} characters,
   * without ',' (the distribution hash separates units with it) or control characters, and named once.
   *
   * @throws BadInputException naming the first bad unit
   */
  static List<String> checkUnits(List<String> units) {
    if (units == null || units.isEmpty()) {
      throw new BadInputException("units: name at least one unit");
    }
    Set<String> seen = new HashSet<>();
    for (String u : units) {
      if (u.isBlank()) {
        throw new BadInputException("unit '" + u + "': empty name; nothing written");
      }
      if (u.length() > MAX_UNIT_CHARS) {
        throw new BadInputException("unit '" + u.substring(0, 20) + "...': " + u.length() + " characters; at most "
            + MAX_UNIT_CHARS + "; nothing written");
      }
      if (u.indexOf(',') >= 0) {
        throw new BadInputException("unit '" + u + "': contains ',', which the distribution hash cannot store; "
            + "nothing written");
      }
      if (u.chars().anyMatch(Character::isISOControl)) {
        throw new BadInputException("unit '" + u.replaceAll("\\p{Cntrl}", "?")
            + "': contains a control character; nothing written");
      }
      if (!seen.add(u)) {
        throw new BadInputException("unit '" + u + "': named twice; nothing written");
      }
    }
    return units;
  }

  /** Runs one operation on the units list of an opened store. */
  abstract static class Op implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin UnitsOptions o;

    abstract void apply(Store store, PrintWriter out, PrintWriter err);

    /** Checks the input before the store is opened; nothing by default. */
    void check() {}

    @Override
    public Integer call() {
      String pool = RouteCommand.checkPool(o.pool);
      if (o.key.isBlank()) {
        throw new BadInputException("--workunits-namespace: empty key");
      }
      check();
      if (StoreOption.isMemory(o.store.uri(null))) {
        throw new BadInputException("-store memory: lives in one process only, so a unit written there is gone when "
            + "this command exits; use the store of the server: redis://... or postgresql://...");
      }
      o.pool = pool;
      try (Store s = o.store.open("allot-units-" + spec.name(), spec.commandLine().getErr())) {
        apply(s, spec.commandLine().getOut(), spec.commandLine().getErr());
        return 0;
      }
    }

    /** The number of live and deleted task specs of the pool: while it has any, they are its units. */
    int taskCount(Store s) {
      TaskSpecs specs;
      try {
        specs = s.taskSpecs(o.pool);
      } catch (UnsupportedOperationException e) {
        return 0; // a store without task specs: every pool takes the units list
      }
      return specs.version() == 0 ? 0 : specs.list().size();
    }
  }

  /** add and remove: the units named, all checked ({@link #checkUnits}) before the store is opened. */
  abstract static class Edit extends Op {
    @Parameters(paramLabel = "UNIT", arity = "1..*",
        description = "A unit name (1 to " + MAX_UNIT_CHARS + " characters, no ',').")
    List<String> units;

    @Override
    void check() {
      checkUnits(units);
    }
  }

  @Command(name = "add", description = {
      "Adds UNIT... to the units list.",
      "Each unit not listed yet is added at the head (as the original's LPUSH), in the order given; one listed "
          + "already is left as it is. "
          + "Refused, with nothing written, for a pool whose units come from its long-running tasks."})
  static final class Add extends Edit {
    @Override
    void apply(Store s, PrintWriter out, PrintWriter err) {
      int tasks = taskCount(s);
      if (tasks > 0) {
        throw new BadInputException("pool '" + o.pool + "' takes its units from its " + tasks + " long-running "
            + "task(s), not from the units list '" + o.key + "': use 'allot task create', or a pool without tasks; "
            + "nothing written");
      }
      List<String> added = new ArrayList<>();
      List<String> kept = new ArrayList<>();
      for (int i = units.size() - 1; i >= 0; i--) { // each at the head: the list starts with them in the order given
        String u = units.get(i);
        (s.seedKeys().addToList(o.key, u) ? added : kept).add(0, u);
      }
      report(err, o.key, "added", added, kept, "already listed");
    }
  }

  @Command(name = "remove", description = {
      "Removes UNIT... from the units list.",
      "A unit not in the list is reported and left out; the distributor takes the removed units from their owners. "
          + "Removing the last unit leaves the table as it is (an empty units list keeps it, as the original did)."})
  static final class Remove extends Edit {
    @Override
    void apply(Store s, PrintWriter out, PrintWriter err) {
      List<String> removed = new ArrayList<>();
      List<String> absent = new ArrayList<>();
      for (String u : units) {
        (s.seedKeys().removeFromList(o.key, u) ? removed : absent).add(u);
      }
      report(err, o.key, "removed", removed, absent, "not listed");
    }
  }

  @Command(name = "list", description = {
      "Prints the units of the units list, one a line, in list order.",
      "For a pool with long-running tasks it says, on standard error, that the pool takes its units from them."})
  static final class ListUnits extends Op {
    @Override
    void apply(Store s, PrintWriter out, PrintWriter err) {
      List<String> units = s.seedKeys().list(o.key);
      units.forEach(out::println);
      int tasks = taskCount(s);
      if (tasks > 0) {
        err.println("allot: pool '" + o.pool + "' takes its units from its " + tasks
            + " long-running task(s); it does not read the units list '" + o.key + "'");
      }
      err.println("allot: units list '" + o.key + "': " + units.size() + " unit(s)");
    }
  }

  private static void report(PrintWriter err, String key, String done, List<String> changed, List<String> same,
      String why) {
    err.println("allot: units list '" + key + "': " + done + " " + changed.size() + " unit(s)" + (changed.isEmpty() ? "" : ": "
        + String.join(", ", changed)) + (same.isEmpty() ? "" : "; " + why + ": " + String.join(", ", same)));
  }
}
