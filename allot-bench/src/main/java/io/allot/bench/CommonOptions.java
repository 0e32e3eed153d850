package io.allot.bench;

import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every command of the bench has (a picocli mixin: {@code @Mixin CommonOptions common;}): the {@code -h}/{@code
 * --help} option, the command's report and progress streams, and the checks of its options ({@link OptionChecks}).
 */
public final class CommonOptions {
  /** The command this is mixed into; set by picocli before the command runs. */
  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  /** The report. */
  public PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Progress, warnings and errors. */
  public PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** The checks of the command's options: a bad value is exit code 2 with a message naming the option. */
  OptionChecks checks() {
    return new OptionChecks(spec);
  }
}
