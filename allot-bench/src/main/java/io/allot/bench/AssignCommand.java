package io.allot.bench;

import java.io.PrintWriter;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code bench assign}: the command line of the assignment simulator, the one place its options are declared and
 * parsed. Runs {@link AssignRunner}; the report ({@link AssignReport#render()}) goes to standard output, progress to
 * standard error. A bad option is a {@link ParameterException} (exit code 2) naming it.
 */
@Command(
    name = "assign",
    sortOptions = false,
    description = {
      "Measures balance, units moved and speed of every strategy.",
      "Simulates every strategy (and the baselines modulo and naive-rendezvous) on N units and M members, "
          + "and prints per (strategy, N, M): max load / ideal and max load - ceil(ideal); units moved / optimum "
          + "when the middle member leaves and when one joins; %% of the other units moved when 1%% of the units "
          + "are replaced, added or removed; full assignment ns/unit and its ratio to modulo; update() time for "
          + "the leave, join, replace, add and remove; whether update() equals a full assign; total time.",
      "Progress goes to stderr. Full grid: N in 1000,100000,1000000, M in 3,10,100,1000, plus N = 2, 5 and "
          + "20 units per member for every M (naive-rendezvous at N=10^6, M=1000 alone takes minutes). "
          + "--quick: N in 1000,10000, M in 3,10,100, plus N/M = 2, 5, 20."
    })
public final class AssignCommand implements Callable<Integer> {
  @Mixin CommonOptions common;

  @Option(names = "--quick",
      description = "Small grid: N in 1000,10000, M in 3,10,100, plus N/M in 2,5,20 (well under a minute).")
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

  @Option(names = "--sizes", split = ",", paramLabel = "N", converter = WholeNumber.class,
      description = "Unit counts, e.g. 1000,1e5,10^6,1_000.")
  List<Integer> sizes;

  @Option(names = "--members", split = ",", paramLabel = "M", converter = WholeNumber.class,
      description = "Member counts, each >= 2.")
  List<Integer> members;

  @Option(names = "--ratios", split = ",", paramLabel = "R", converter = WholeNumber.class,
      description = "Units per member: for every M also run N = R x M (default 2,5,20 unless --sizes is given).")
  List<Integer> ratios;

  @Option(names = "--repeat", paramLabel = "K", converter = WholeNumber.class,
      description = "Timed runs per operation (default: by size); the median is reported.")
  Integer repeat;

  /**
   * The options of a command line, for code and tests.
   *
   * @throws ParameterException naming the bad option
   */
  public static AssignOptions parse(String... args) {
    AssignCommand c = new AssignCommand();
    new CommandLine(c).parseArgs(args);
    return c.options();
  }

  /** The parsed options, checked. */
  AssignOptions options() {
    try {
      if (repeat != null && repeat < 1) {
        throw new IllegalArgumentException(
            "--repeat: " + repeat + " is out of range; it must be between 1 and " + AssignOptions.MAX_REPEAT);
      }
      return new AssignOptions(quick, json, strategies, sizes, members, ratios, repeat == null ? 0 : repeat);
    } catch (IllegalArgumentException e) {
      throw common.checks().bad(e.getMessage());
    }
  }

  @Override
  public Integer call() {
    AssignOptions options = options();
    PrintWriter out = common.out();
    PrintWriter err = common.err();
    AssignReport report =
        AssignRunner.run(
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

  /** The strategy names, for help and completion. */
  static final class StrategyNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Strategies.all().iterator();
    }
  }

  /** A whole number written {@code 1000}, {@code 1_000}, {@code 1e3} or {@code 10^3}. */
  static final class WholeNumber implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
      return parse(text);
    }

    /**
     * Parses a whole number.
     *
     * @throws TypeConversionException saying what is wrong with {@code text}
     */
    static int parse(String text) {
      String s = text.trim().replace("_", "");
      try {
        long v;
        int caret = s.indexOf('^');
        int e = s.toLowerCase(Locale.ROOT).indexOf('e');
        if (caret > 0) {
          v = pow(Long.parseLong(s.substring(0, caret)), Integer.parseInt(s.substring(caret + 1)));
        } else if (e > 0) {
          v = Math.multiplyExact(Long.parseLong(s.substring(0, e)), pow(10, Integer.parseInt(s.substring(e + 1))));
        } else {
          v = Long.parseLong(s);
        }
        if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
          throw new TypeConversionException(text.trim() + " is too large");
        }
        return (int) v;
      } catch (NumberFormatException | ArithmeticException x) {
        throw new TypeConversionException("'" + text.trim() + "' is not a whole number");
      }
    }

    private static long pow(long base, int exp) {
      if (exp < 0 || exp > 18) {
        throw new ArithmeticException("exponent");
      }
      long r = 1;
      for (int i = 0; i < exp; i++) {
        r = Math.multiplyExact(r, base);
      }
      return r;
    }
  }
}
