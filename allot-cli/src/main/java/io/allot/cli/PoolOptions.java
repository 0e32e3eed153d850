package io.allot.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of a command on one pool of a store ({@code allot task ...}, {@code allot units ...}): the store and
 * the required {@code -pool}. A picocli mixin; the commands extend it with their own options. Set by picocli while
 * parsing, read after: one thread.
 */
class PoolOptions {
  @Mixin StoreOption store;

  @Option(names = {"-pool", "--pool"}, paramLabel = "POOL", required = true,
      description = "The pool (a services list key of the server).")
  String pool;
}
