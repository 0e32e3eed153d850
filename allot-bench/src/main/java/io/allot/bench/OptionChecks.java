package io.allot.bench;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The option checks the benches share: a bad value is a {@link ParameterException} (exit code 2, the usage after
 * it) whose message names the option.
 */
final class OptionChecks {
  private final CommandSpec spec;

  /** Checks for the options of the command {@code spec}. */
  OptionChecks(CommandSpec spec) {
    this.spec = spec;
  }

  /** {@code name} must be in [{@code min}, {@code max}]. */
  void between(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw bad(name + " must be between " + min + " and " + max + ", got " + value);
    }
  }

  /** {@code name} must be at least {@code min}; {@code unit} follows the bound in the message (" ms", or ""). */
  void atLeast(String name, long value, long min, String unit) {
    if (value < min) {
      throw bad(name + " must be at least " + min + unit + ", got " + value);
    }
  }

  /** A bad option value: exit code 2, the message first, then the usage. */
  ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
