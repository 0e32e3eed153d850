package io.allot.bench;

import picocli.CommandLine.Option;

/** The {@code -h}/{@code --help} option of every command of the bench (a picocli mixin). */
final class HelpOption {
  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;
}
