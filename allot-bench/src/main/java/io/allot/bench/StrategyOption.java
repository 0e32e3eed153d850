package io.allot.bench;

import io.allot.core.assign.Assigners;
import picocli.CommandLine.Option;

/** The distributor's assignment strategy of the distributor and handoff benches (a picocli mixin). */
final class StrategyOption {
  @Option(names = "--strategy", paramLabel = "NAME", defaultValue = Assigners.DEFAULT,
      description = "The distributor's assignment strategy. Default ${DEFAULT-VALUE}.")
  String name;

  /** An unknown strategy is a {@link picocli.CommandLine.ParameterException} naming the option. */
  void check(OptionChecks check) {
    try {
      Assigners.byName(name);
    } catch (IllegalArgumentException e) {
      throw check.bad("--strategy: " + e.getMessage());
    }
  }
}
