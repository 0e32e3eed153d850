package io.allot.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code allot help [COMMAND [SUBCOMMAND...]]}: the help of any command of the tree, as its {@code --help} prints it
 * ({@code allot help job enqueue} is {@code allot job enqueue --help}).
 */
@Command(name = "help", helpCommand = true,
    description = "Prints the help of a command, as its --help does: allot help job enqueue.")
final class HelpCommand implements Runnable, CommandLine.IHelpCommandInitializable2 {
  @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command and its subcommands.")
  List<String> names = List.of();

  // set by picocli (init) before run, on the thread that runs it
  private CommandLine self;
  private PrintWriter out;

  @Override
  public void init(CommandLine helpCommandLine, Help.ColorScheme colorScheme, PrintWriter outWriter,
      PrintWriter errWriter) {
    this.self = helpCommandLine;
    this.out = outWriter;
  }

  @Override
  public void run() {
    CommandLine at = self.getParent();
    for (String name : names) {
      CommandLine next = at.getSubcommands().get(name);
      if (next == null) {
        throw new ParameterException(self, "Unknown command: '" + String.join(" ", names) + "'; '"
            + at.getCommandName() + "' has: " + String.join(", ", at.getSubcommands().keySet()));
      }
      at = next;
    }
    at.usage(out);
  }
}
