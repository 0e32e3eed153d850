package io.allot.bench;

import java.util.List;
import java.util.stream.IntStream;
import picocli.CommandLine.Option;

/**
 * The size of the fleet of the failover and handoff benches (a picocli mixin): M workers sharing N units, named
 * {@code u0} to {@code u<N-1>}.
 */
final class FleetSize {
  @Option(names = "--workers", defaultValue = "4", description = "Workers (M), 2 to 32. Default ${DEFAULT-VALUE}.")
  int workers;

  @Option(names = "--units", defaultValue = "10000", description = "Units (N). Default ${DEFAULT-VALUE}.")
  int units;

  /** Bad values are a {@link picocli.CommandLine.ParameterException} naming the option. */
  void check(OptionChecks check) {
    check.between("--workers", workers, 2, 32);
    check.atLeast("--units", units, 1, "");
  }

  /** The units' names: {@code u0}, {@code u1}, ... */
  List<String> unitNames() {
    return IntStream.range(0, units).mapToObj(i -> "u" + i).toList();
  }
}
