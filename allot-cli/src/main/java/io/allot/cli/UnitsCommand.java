package io.allot.cli;

import io.allot.server.units.UnitsListEditor;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot units add|remove|list}: the units list (the server's {@code -workunits-namespace}) on any store,
 * through the store's {@link SeedKeys} role, with the code of the REST routes ({@link UnitsListEditor}): each add and
 * remove is one atomic store operation, the same on memory, Redis and PostgreSQL. Every unit named is checked before
 * anything is written ({@link #checkUnits}).
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
  static final int MAX_UNIT_CHARS = UnitsListEditor.MAX_UNIT_CHARS;

  /** The options every units subcommand takes: the store, the pool whose units these are, the units list. */
  static final class UnitsOptions extends PoolOptions {
    @Option(names = {"-workunits-namespace", "--workunits-namespace"}, paramLabel = "KEY",
        defaultValue = "sys-channels",
        description = "The units list key (the server's -workunits-namespace). Default ${DEFAULT-VALUE}.")
    String key;
  }

  /**
   * Checks the units named on the command line ({@link UnitsListEditor#check}).
   *
   * @throws BadInputException naming the first bad unit
   */
  static List<String> checkUnits(List<String> units) {
    try {
      return UnitsListEditor.check(units);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
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

    /** The units list of {@code s}, edited as the REST API edits it. */
    UnitsListEditor editor(Store s) {
      return new UnitsListEditor(s, o.key);
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
      UnitsListEditor.Edit edit;
      try {
        edit = editor(s).add(o.pool, units);
      } catch (UnitsListEditor.PoolHasTasksException e) {
        throw new BadInputException(e.getMessage().replace("create tasks instead", "use 'allot task create'"));
      }
      report(err, o.key, "added", edit.changed(), edit.unchanged(), "already listed");
    }
  }

  @Command(name = "remove", description = {
      "Removes UNIT... from the units list.",
      "A unit not in the list is reported and left out; the distributor takes the removed units from their owners. "
          + "Removing the last unit leaves the table as it is (an empty units list keeps it, as the original did)."})
  static final class Remove extends Edit {
    @Override
    void apply(Store s, PrintWriter out, PrintWriter err) {
      UnitsListEditor.Edit edit = editor(s).remove(units);
      report(err, o.key, "removed", edit.changed(), edit.unchanged(), "not listed");
    }
  }

  @Command(name = "list", description = {
      "Prints the units of the units list, one a line, in list order.",
      "For a pool with long-running tasks it says, on standard error, that the pool takes its units from them."})
  static final class ListUnits extends Op {
    @Override
    void apply(Store s, PrintWriter out, PrintWriter err) {
      List<String> units = editor(s).list();
      units.forEach(out::println);
      int tasks = editor(s).taskCount(o.pool);
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
