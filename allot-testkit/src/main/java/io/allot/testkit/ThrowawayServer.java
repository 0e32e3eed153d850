package io.allot.testkit;

import java.nio.file.Path;
import java.util.List;

/**
 * The life cycle {@link RedisServer} and {@link PostgresServer} share: a server process with a temporary directory
 * of its own, killed and started again on the same port and directory by {@link #restart()}, killed and its
 * directory deleted by {@link #close()}. Subclasses synchronize on {@code this}, as these methods do.
 */
abstract class ThrowawayServer implements AutoCloseable {
  /** The address every throwaway server listens on. */
  public static final String HOST = "127.0.0.1";

  private final Path dir;
  private final int port;
  /** Guarded by {@code this}. */
  private boolean closed;

  ThrowawayServer(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  /** {@value #HOST}. */
  public String host() {
    return HOST;
  }

  /** The port, the same across restarts. */
  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:PORT}. */
  public String address() {
    return HOST + ":" + port;
  }

  /**
   * {@code address} if the server listens on it ({@value #HOST}, or one of {@code alsoListenOn}).
   *
   * @throws IllegalArgumentException if it does not
   */
  String listening(String address, List<String> alsoListenOn) {
    if (!HOST.equals(address) && !alsoListenOn.contains(address)) {
      throw new IllegalArgumentException("address " + address + ": " + kind() + " " + address() + " listens on "
          + HOST + (alsoListenOn.isEmpty() ? "" : " and " + String.join(", ", alsoListenOn)) + " only");
    }
    return address;
  }

  /** The server's directory: its data and its log. */
  public Path dir() {
    return dir;
  }

  /** SIGKILL, as a crash would; returns once the server's processes are gone. */
  public abstract void kill();

  /** Starts the server on its port with its directory; returns once it answers. */
  abstract void launch();

  /** "redis-server", "PostgreSQL": for messages. */
  abstract String kind();

  /** The server's log file. */
  abstract Path logFile();

  /**
   * Starts the server again on the same port with the same directory and settings, killing it first (SIGKILL) if
   * it still runs; returns once it answers. What data survives depends on the server's persistence.
   *
   * @throws IllegalStateException if it does not come up (with its log), or it was closed
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException(kind() + " " + address() + " is closed");
    }
    kill();
    launch();
    org.slf4j.LoggerFactory.getLogger(getClass()).info("{} {} restarted", kind(), address());
  }

  /** The last 4000 characters of the server's log. */
  public String log() {
    return Dirs.tail(logFile(), 4000);
  }

  /** Kills the server and deletes its directory. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      kill();
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(getClass()).warn("cannot kill {} {}: {}", kind(), address(), e.getMessage());
    }
    Dirs.deleteTree(dir);
  }
}
