package io.allot.cli.dev;

/** A member {@code allot dev} can stop and start again (its chaos): a demo member, a worker, a task member. */
interface DevMember extends AutoCloseable {
  /** What the output calls it: its kind, pool and member id. */
  String describe();

  /** True while it runs. */
  boolean running();

  /** Starts it (again); nothing if it runs. */
  void start();

  /** Stops it; nothing if it is stopped. */
  void stop();

  /** Units (or tasks) it holds now; 0 while stopped. */
  int held();

  @Override
  default void close() {
    stop();
  }
}
