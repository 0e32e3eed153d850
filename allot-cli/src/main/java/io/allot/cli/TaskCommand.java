package io.allot.cli;

import io.allot.store.Store;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import io.allot.tasks.service.TaskView;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code allot task ...}: long-running tasks from the command line, straight on the store, with the checks and
 * statuses of the REST API ({@link TaskService}).
 */
@Command(
    name = "task",
    description = {
      "Long-running tasks of a pool: creates, updates, deletes, gets and lists them.",
      "Talks to the store directly, with the checks and the derived statuses of the server's API (/api/v1): Created, "
          + "Processing, OnDeleting, Deleted, Failed, Pending. Prints tasks as JSON (list: a table, or JSON with "
          + "--json). Jobs (finite queued work) are `allot job ...`.",
      "Exit codes: 0 done, 1 no such task or a conflict (409), 2 bad input (named: also a pool no distributor "
          + "serves or one fed by the units list) or an unreachable store."
    },
    subcommands = {TaskCommand.Create.class, TaskCommand.Update.class, TaskCommand.Delete.class,
        TaskCommand.Get.class, TaskCommand.ListTasks.class})
final class TaskCommand extends ParentCommand {
  /** The options every task subcommand takes. */
  static final class TaskOptions extends PoolOptions {
    @Option(names = {"-distribution-namespace", "--distribution-namespace"}, paramLabel = "KEY",
        defaultValue = "sys-matching-table",
        description = "The table the distributor publishes (statuses read it; a pool is known when a distributor "
            + "serves it into this table or it has held tasks). Default ${DEFAULT-VALUE}.")
    String table;

    @Option(names = {"-workunits-namespace", "--workunits-namespace"}, paramLabel = "KEY", defaultValue = "sys-channels",
        description = "The server's units list: no task is created in a pool fed by it while it holds units (a pool "
            + "with tasks ignores its units list). Default ${DEFAULT-VALUE}.")
    String unitsList;
  }

  /**
   * The exit code of a request the task service refused: 2 for bad input (the usage error's code: nothing changed,
   * the command line must change), also any refusal of the pool (-pool names a pool no distributor serves, or one
   * fed by the units list), 1 for everything else.
   */
  static int exitCode(TaskServiceException e) {
    return "pool".equals(e.field()) ? 2 : exitCode(e.kind());
  }

  /** The exit code of a refusal of {@code kind} that is not about the pool. */
  static int exitCode(ErrorKind kind) {
    return switch (kind) {
      case BAD_INPUT, TOO_LARGE -> 2;
      case UNAUTHENTICATED, NOT_FOUND, CONFLICT, UNAVAILABLE -> 1;
    };
  }

  /** An operation on the task NAME. */
  abstract static class NamedOp extends Op {
    @Parameters(paramLabel = "NAME", description = "The task name.")
    String name;
  }

  /** Runs one operation on the service: API errors become exit codes with a one-line message. */
  abstract static class Op implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin TaskOptions t;

    /** The subcommand's name: the verb of its messages and its Redis client name. */
    String verb() {
      return spec.name();
    }

    abstract void apply(TaskService service, PrintWriter out, PrintWriter err);

    @Override
    public Integer call() {
      if (StoreOption.isMemory(t.store.uri("allot-task-" + verb()))) {
        throw new BadInputException("-store memory: lives in one process only, so a task written there is gone when "
            + "this command exits; use the store of the server: redis://... or postgresql://...");
      }
      try (Store s = t.store.open("allot-task-" + verb(), spec.commandLine().getErr())) {
        TaskService service = TaskService.servedPools(s, t.table).withUnitsList(t.unitsList);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
          apply(service, out, err);
        } catch (TaskServiceException e) {
          int code = exitCode(e);
          err.println("allot: " + e.getMessage() + (code == 2 ? "; nothing changed" : ""));
          return code;
        } catch (UnsupportedOperationException e) {
          err.println("allot: store " + s.describe() + " cannot hold task specs yet: " + e.getMessage());
          return 1;
        }
        return 0;
      }
    }
  }

  /** The arguments of create and update: inline JSON or a file. */
  static final class ArgsOptions {
    @Option(names = {"-args", "--args"}, paramLabel = "JSON", description = "The arguments: a JSON object.")
    String json;

    @Option(names = {"-args-file", "--args-file"}, paramLabel = "FILE",
        description = "Read the arguments (a JSON object) from FILE ('-' = standard input).")
    Path file;

    /** The JSON text, or {@code dflt} when neither option is given. */
    String text(String dflt) {
      if (json != null && file != null) {
        throw new BadInputException("--args and --args-file: give one of them");
      }
      if (file != null) {
        try {
          return file.toString().equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
              : Files.readString(file);
        } catch (IOException e) {
          throw new BadInputException("--args-file " + file + ": cannot read: " + e.getMessage());
        }
      }
      return json == null ? dflt : json;
    }
  }

  static void print(PrintWriter out, TaskView v) {
    out.println(TaskJson.writePretty(TaskJson.task(v)));
  }

  @Command(name = "create", description = {
      "Creates task NAME.",
      "Idempotent: an identical task (same arguments, compared as canonical JSON, and cost) is left as it is "
          + "(exit 0); one with other arguments or cost is a conflict (exit 1)."})
  static final class Create extends Op {
    @Parameters(paramLabel = "NAME", description = "The task name (letters, digits, . _ : @ -).")
    String name;

    @Mixin ArgsOptions args;

    @Option(names = {"-cost", "--cost"}, paramLabel = "N", defaultValue = "1", description = "Capacity units it takes. Default ${DEFAULT-VALUE}.")
    int cost;

    @Override
    void apply(TaskService service, PrintWriter out, PrintWriter err) {
      TaskService.Written w = service.create(t.pool, name, args.text("{}"), cost);
      err.println("allot: task '" + name + "' " + (w.created() ? "created" : "already exists with these arguments and cost; nothing changed")
          + " in pool '" + t.pool + "'");
      err.flush();
      print(out, w.task());
    }
  }

  @Command(name = "update", description = "Replaces the arguments (and the cost, if given) of the live task NAME.")
  static final class Update extends NamedOp {
    @Mixin ArgsOptions args;

    @Option(names = {"-cost", "--cost"}, paramLabel = "N", description = "A new cost (default: kept).")
    Integer cost;

    @Override
    void apply(TaskService service, PrintWriter out, PrintWriter err) {
      String text = args.text(null);
      if (text == null) {
        throw new BadInputException("--args or --args-file: the new arguments are required");
      }
      print(out, service.update(t.pool, name, text, cost));
    }
  }

  @Command(name = "delete", description = {
      "Requests deletion of task NAME; it converges: OnDeleting while an owner still holds it, then Deleted."})
  static final class Delete extends NamedOp {
    @Override
    void apply(TaskService service, PrintWriter out, PrintWriter err) {
      print(out, service.delete(t.pool, name));
    }
  }

  @Command(name = "get", description = "Prints task NAME (live or deleted) as JSON.")
  static final class Get extends NamedOp {
    @Override
    void apply(TaskService service, PrintWriter out, PrintWriter err) {
      print(out, service.get(t.pool, name));
    }
  }

  @Command(name = "list", description = "Lists the tasks of the pool (live and deleted), sorted by name.")
  static final class ListTasks extends Op {
    @Option(names = {"-status", "--status"}, paramLabel = "STATUS",
        description = "Only tasks with this status: Created, Processing, OnDeleting, Deleted, Failed, Pending.")
    String status;

    @Option(names = {"-json", "--json"}, description = "Print {\"tasks\": [...]} as JSON instead of a table.")
    boolean json;

    @Override
    void apply(TaskService service, PrintWriter out, PrintWriter err) {
      List<TaskView> tasks = service.list(t.pool, status);
      if (json) {
        out.println(TaskJson.writePretty(TaskJson.tasks(tasks)));
        return;
      }
      Function<Object, String> s = o -> o == null ? "-" : o.toString();
      out.printf("%-32s %-10s %5s %8s  %-22s %s%n", "NAME", "STATUS", "COST", "REVISION", "OWNER", "TOKEN / REASON");
      for (TaskView v : tasks) {
        out.printf("%-32s %-10s %5d %8d  %-22s %s%n", v.name(), v.status().jsonName(), v.cost(), v.revision(),
            s.apply(v.owner()), v.reason() != null ? v.reason() : s.apply(v.token()));
      }
      out.printf("%d tasks%n", tasks.size());
    }
  }
}
