package io.allot.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only holds subcommands ({@code allot job}, {@code allot task}): run alone, it prints its help to
 * standard error and is bad input naming its subcommands.
 */
abstract class ParentCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new BadInputException(spec.name() + ": name a subcommand: " + String.join(", ", spec.subcommands().keySet()));
  }
}
