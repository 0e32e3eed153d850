package io.allot.bench;

import io.allot.cli.BadInputException;
import io.allot.cli.StoreOption;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

/**
 * The benchmark jar's command line ({@code java -jar allot-bench.jar ...}, which {@code bin/allot bench ...} runs):
 * {@code assign}, {@code distributor}, {@code failover}, {@code jmh}. Exit codes: 0 ok, 2 bad usage (the message
 * names the bad option), 1 if a run fails.
 */
@Command(
    name = "allot bench",
    description = "Benchmarks: the assignment strategies (assign), the distributor at scale (distributor), failover "
        + "with real processes (failover), planned handoffs (handoff), job queues against db-scheduler (jobs), "
        + "gRPC routing policies (route), and the JMH suites (jmh).",
    subcommands = {AssignCommand.class, DistributorBench.class, FailoverBench.class, HandoffBench.class, JobBench.class,
        io.allot.bench.route.RouteBench.class, JmhCommand.class})
public final class BenchMain implements Callable<Integer> {
  @Mixin CommonOptions common;

  @Override
  public Integer call() {
    throw common.checks().bad(
        "Missing required subcommand: choose one of: " + String.join(", ", common.spec.subcommands().keySet()));
  }

  /**
   * Runs a command line and returns its exit code.
   *
   * @param out the report
   * @param err progress, errors and usage
   */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = new CommandLine(new BenchMain()).setOut(out).setErr(err);
    StoreOption.envDefault(cl, System::getenv);
    // a store that cannot be opened is bad usage too: the message names the URI
    cl.setExecutionExceptionHandler((ex, commandLine, parsed) -> {
      if (!(ex instanceof BadInputException)) {
        throw ex;
      }
      commandLine.getErr().println(ex.getMessage());
      commandLine.usage(commandLine.getErr());
      return 2;
    });
    return cl.execute(args);
  }

  public static void main(String[] args) {
    // the servers and stores of the distributor and failover benches log through slf4j-simple: warnings only
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }
}
