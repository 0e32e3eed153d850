package io.allot.cli;

import io.allot.bench.AssignBench;
import io.allot.bench.AssignBench.Options;
import io.allot.bench.AssignBench.Report;
import io.allot.bench.Strategies;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code allot bench}: benchmarks. Its one subcommand, {@code assign}, runs {@link AssignBench}.
 * Exit codes: 0 ok, 2 bad usage (picocli's default for parameter errors), 1 if the run itself
 * fails. A strategy that throws does not fail the run: its rows read {@code error: <message>}.
 */
@Command(
    name = "bench",
    description = "Benchmarks: the assignment strategies (assign) and one distributor cycle at scale (distributor).",
    subcommands = {BenchCommand.Assign.class, BenchCommand.Distributor.class, FailoverBench.class})
public final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "Missing required subcommand: choose one of: assign, distributor");
  }

  /** {@code allot bench assign}. */
  @Command(
      name = "assign",
      sortOptions = false,
      description = {
        "Measures balance, units moved and speed of every strategy.",
        "Simulates every strategy (and the baselines modulo and naive-rendezvous) on N units and M members, "
            + "and prints per (strategy, N, M): max load / ideal; units moved / optimum when the middle member "
            + "leaves and when one joins; %% of the other units moved when 1%% of the units are replaced; full "
            + "assignment ns/unit and its ratio to modulo; update() time for the leave, join and churn; "
            + "whether update() equals a full assign; total time.",
        "Progress goes to stderr. Full grid: N in 1000,100000,1000000, M in 3,10,100,1000 (naive-rendezvous "
            + "at N=10^6, M=1000 alone takes minutes)."
      })
  public static final class Assign implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "--quick", description = "Small grid: N in 1000,10000, M in 3,10,100 (well under a minute).")
    boolean quick;

    @Option(names = "--json", description = "Print a JSON document instead of the table.")
    boolean json;

    @Option(
        names = "--strategies",
        split = ",",
        paramLabel = "NAME",
        description = "Strategies to run (default: all): ${COMPLETION-CANDIDATES}.",
        completionCandidates = StrategyNames.class)
    List<String> strategies;

    @Option(names = "--sizes", split = ",", paramLabel = "N", description = "Unit counts, e.g. 1000,1e5,10^6.")
    List<String> sizes;

    @Option(names = "--members", split = ",", paramLabel = "M", description = "Member counts, each >= 2.")
    List<String> members;

    @Option(names = "--repeat", paramLabel = "K", description = "Timed runs per operation (default: by size); the median is reported.")
    Integer repeat;

    @Override
    public Integer call() {
      Options options;
      try {
        AssignBench.Builder b = Options.builder().quick(quick).json(json);
        if (strategies != null) {
          b.strategies(String.join(",", strategies));
        }
        if (sizes != null) {
          b.sizes(String.join(",", sizes));
        }
        if (members != null) {
          b.members(String.join(",", members));
        }
        if (repeat != null) {
          b.repeat(repeat);
        }
        options = b.build();
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Report report =
          AssignBench.run(
              options,
              Strategies::byName,
              line -> {
                err.println(line);
                err.flush();
              });
      out.print(report.render());
      out.flush();
      return 0;
    }
  }

  /** The strategy names, for help and completion. */
  static final class StrategyNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Strategies.all().iterator();
    }
  }

  /** {@code allot bench distributor}. */
  @Command(
      name = "distributor",
      mixinStandardHelpOptions = true,
      description = {
        "One distributor cycle at scale: M members (real gRPC servers on loopback ports) and N units.",
        "Prints ping round, compute and write times: first cycle, steady cycles, and a cycle after one member stopped."
      })
  public static final class Distributor implements Callable<Integer> {
    @Option(names = "--members", defaultValue = "1000", description = "Members. Default ${DEFAULT-VALUE}.")
    int members;

    @Option(names = "--units", defaultValue = "100000", description = "Units. Default ${DEFAULT-VALUE}.")
    int units;

    @Option(names = "--store", defaultValue = "127.0.0.1:6379", description = "Redis address, or 'memory'. Default ${DEFAULT-VALUE}.")
    String store;

    @Option(names = "--strategy", defaultValue = "rendezvous", description = "Default ${DEFAULT-VALUE}.")
    String strategy;

    @Option(names = "--cycles", defaultValue = "3", description = "Steady cycles to time. Default ${DEFAULT-VALUE}.")
    int cycles;

    @Override
    public Integer call() throws Exception {
      if (members < 1 || members > 5000) {
        throw new BadInputException("--members must be between 1 and 5000, got " + members);
      }
      if (units < 1) {
        throw new BadInputException("--units must be at least 1, got " + units);
      }
      io.allot.core.assign.Assigners.byName(strategy);
      Logging.configure("warn");
      io.allot.bench.DistributorBench.run(
          new io.allot.bench.DistributorBench.Options(members, units, store, strategy, Math.max(1, cycles)), System.out, System.err);
      return 0;
    }
  }
}
