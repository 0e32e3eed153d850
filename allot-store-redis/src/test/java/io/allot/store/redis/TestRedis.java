package io.allot.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;

/**
 * The Redis the contract tests run against: {@code $ALLOT_TEST_REDIS} or 127.0.0.1:6379 when it answers, else a
 * throwaway redis-server started once for this JVM, else the tests are skipped with a message.
 */
final class TestRedis {
  private static String address;
  private static RedisServerProcess own;

  private TestRedis() {}

  static synchronized String address() {
    if (address == null) {
      String wanted = System.getenv().getOrDefault("ALLOT_TEST_REDIS", "127.0.0.1:6379");
      if (answers(wanted)) {
        address = wanted;
      } else if (RedisServerProcess.available()) {
        try {
          own = RedisServerProcess.start();
          Runtime.getRuntime().addShutdownHook(new Thread(own::close));
          address = own.address();
        } catch (IOException e) {
          Assumptions.abort("no Redis at " + wanted + " and starting redis-server failed: " + e.getMessage());
        }
      } else {
        Assumptions.abort("no Redis at " + wanted + " and no redis-server binary to start one");
      }
    }
    return address;
  }

  private static boolean answers(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))),
          500);
      s.setSoTimeout(1000);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return in.read() == '+';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
