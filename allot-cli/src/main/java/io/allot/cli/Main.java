package io.allot.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code allot} command line. */
@Command(
    name = "allot",
    description = "Decides who does what in a fleet of service instances.",
    subcommands = {AssignCommand.class, ServerCommand.class, WorkerCommand.class, JobCommand.class, TaskCommand.class,
        UnitsCommand.class, RouteCommand.class, DevCommand.class,
        HelpCommand.class})
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (0 ok, 1 failure, 2 bad usage or input). */
  public static int run(String... args) {
    return run(
        new java.io.PrintWriter(System.out, true, java.nio.charset.StandardCharsets.UTF_8),
        new java.io.PrintWriter(System.err, true, java.nio.charset.StandardCharsets.UTF_8),
        args);
  }

  /** Runs the command line with the given streams; returns the exit code. */
  public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
    return run(out, err, System::getenv, args);
  }

  /** Runs the command line with the given streams and environment; returns the exit code. */
  static int run(java.io.PrintWriter out, java.io.PrintWriter err, java.util.function.Function<String, String> env, String... args) {
    CommandLine cl = commandLine(out, err, env);
    String unknown = unknownCommand(cl, args);
    if (unknown != null) {
      err.println("allot: unknown command '" + unknown + "'; use one of: " + String.join(", ", cl.getSubcommands().keySet()));
      err.flush();
      return 2;
    }
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /**
   * The whole command tree, ready to execute: every command with the help and version options ({@link HelpOptions}),
   * the store's environment default, the server's environment defaults, one-line errors for bad input.
   */
  static CommandLine commandLine(java.io.PrintWriter out, java.io.PrintWriter err,
      java.util.function.Function<String, String> env) {
    CommandLine cl = new CommandLine(new Main());
    addHelpOptions(cl);
    cl.setPosixClusteredShortOptionsAllowed(false); // Go-style flags: -poll-interval is one flag, not -p -o ...
    StoreOption.envDefault(cl, env); // every command's -store: STORE; the server's own provider below reads it too
    // only the server reads its settings from the environment, as the original distributor does
    cl.getSubcommands()
        .get("server")
        .setDefaultValueProvider(
            new EnvDefaults(env, java.util.Map.of("SERVICES_NAMESPACES", java.util.List.of("SERVICES_NAMESPACE"))));
    // dev reads only its API token and, as every command, its store from the environment
    cl.getSubcommands().get("dev").setDefaultValueProvider(arg ->
        arg instanceof picocli.CommandLine.Model.OptionSpec o && o.longestName().equals("--api-token")
            ? env.apply("API_TOKEN")
            : arg instanceof picocli.CommandLine.Model.OptionSpec o && o.longestName().equals("--store")
                && env.apply(StoreOption.ENV) != null && !env.apply(StoreOption.ENV).isBlank()
                ? env.apply(StoreOption.ENV) : null);
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof BadInputException || ex instanceof IllegalArgumentException) {
            commandLine.getErr().println("allot: " + ex.getMessage());
            return 2;
          }
          commandLine.getErr().println("allot: " + ex);
          return 1;
        });
    return cl;
  }

  /** Adds {@link HelpOptions} and the version to {@code cl} and every command below it. */
  private static void addHelpOptions(CommandLine cl) {
    cl.getCommandSpec().addMixin("helpOptions", CommandLine.Model.CommandSpec.forAnnotatedObject(new HelpOptions()));
    cl.getCommandSpec().versionProvider(new Version());
    cl.getSubcommands().values().forEach(Main::addHelpOptions);
  }

  /**
   * The first argument that is not an option, if it names no subcommand (the top level takes no option values, so
   * that argument is where the command must be); else null. Checked before picocli runs, which would otherwise
   * answer {@code allot nosuch --help} with the main help and exit 0.
   */
  static String unknownCommand(CommandLine cl, String... args) {
    for (String a : args) {
      if (a.equals("--")) {
        return null;
      }
      if (!a.startsWith("-")) {
        return cl.getSubcommands().containsKey(a) ? null : a;
      }
    }
    return null;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * The version of this build: the jar manifest's {@code Implementation-Version} (set by the Maven build of
   * {@code allot.jar}, which {@code bin/allot} runs); {@code dev} only when there is no manifest version (classes run
   * from an IDE or {@code target/classes}).
   */
  static String version() {
    String v = Main.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /** {@link #version()} and the Java version. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"allot " + version() + " (Java " + System.getProperty("java.version") + ")"};
    }
  }
}
