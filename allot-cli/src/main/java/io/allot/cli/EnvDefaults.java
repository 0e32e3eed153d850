package io.allot.cli;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Environment variables as defaults for options: a flag on the command line wins over the
 * variable, which wins over the built-in default. The variable of option {@code -poll-interval} is
 * {@code POLL_INTERVAL}; extra aliases can be given.
 */
final class EnvDefaults implements CommandLine.IDefaultValueProvider {
  private final Function<String, String> env;
  private final Map<String, List<String>> aliases;

  EnvDefaults(Function<String, String> env, Map<String, List<String>> aliases) {
    this.env = env;
    this.aliases = aliases;
  }

  static String variableOf(String option) {
    return option.replaceFirst("^-+", "").replace('-', '_').toUpperCase(java.util.Locale.ROOT);
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec o)) {
      return null;
    }
    String var = variableOf(o.longestName());
    String v = env.apply(var);
    if (v != null && !v.isEmpty()) {
      return v;
    }
    for (String alias : aliases.getOrDefault(var, List.of())) {
      v = env.apply(alias);
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return null;
  }
}
