package io.allot.jobs;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code prefix + n}, and the default ids of workers and dispatchers. Stateless. */
final class Threads {
  private Threads() {}

  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** {@code host:pid:random}. */
  static String defaultId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    String pid = String.valueOf(ManagementFactory.getRuntimeMXBean().getPid());
    return host + ":" + pid + ":" + UUID.randomUUID().toString().substring(0, 4);
  }
}
