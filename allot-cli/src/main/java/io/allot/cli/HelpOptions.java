package io.allot.cli;

import picocli.CommandLine.Option;

/**
 * The help and version options of every {@code allot} command (a picocli mixin that {@link Main} adds to each one):
 * {@code -h}, {@code -help}, {@code --help} print the command's help; {@code -V}, {@code -version}, {@code --version}
 * print allot's version. Both exit 0 before any other option is checked.
 */
final class HelpOptions {
  // set by picocli while parsing: one thread
  @Option(names = {"-h", "-help", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(names = {"-V", "-version", "--version"}, versionHelp = true,
      description = "Print allot's version and exit.")
  boolean version;
}
