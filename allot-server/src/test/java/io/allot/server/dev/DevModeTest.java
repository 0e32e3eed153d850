package io.allot.server.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class DevModeTest {
  @Test
  void showsRedistributionWhenAMemberStopsAndComesBack() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    try (DevMode dev = new DevMode(out, 3, 20, "rendezvous", Duration.ofMillis(200), Duration.ofMillis(1500), new SimpleMeterRegistry())) {
      Thread t = new Thread(() -> {
        try {
          dev.run(null);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      t.setDaemon(true);
      t.start();
      Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> buf.toString(StandardCharsets.UTF_8).contains("DOWN"));
      Awaitility.await().atMost(Duration.ofSeconds(20))
          .until(() -> {
            String s = buf.toString(StandardCharsets.UTF_8);
            // the whole table printed after it, one line per member (the header comes first)
            return s.indexOf("all members up", s.indexOf("DOWN")) > 0 && tableAt(s, "epoch 3").lines().count() == 3;
          });
      String s = buf.toString(StandardCharsets.UTF_8);
      assertThat(s).contains("epoch 1").contains("epoch 2").contains(">>> stopping member").contains(">>> restarting member");
      // the first table and the table after the member came back are the same (rendezvous gives its units back)
      String first = tableAt(s, "epoch 1");
      String again = tableAt(s, "epoch 3");
      assertThat(again).isEqualTo(first);
    }
  }

  private static String tableAt(String s, String marker) {
    int i = s.indexOf(marker);
    int start = s.indexOf('\n', i) + 1;
    int end = s.indexOf("\n\n", start);
    return s.substring(start, end < 0 ? s.length() : end).strip();
  }
}
