package io.allot.testkit.overlap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventFileTest {
  @TempDir Path dir;

  @Test
  void openUnitsAndLeaseLosses() throws Exception {
    Path f = dir.resolve("w0-0.events");
    Files.writeString(f, "100 start u1 5\n110 start u2 6\n120 stop u1\n130 lease-lost\n140 start u3 7\n150 start u4 8\n"
        + "160 stop u3\n170 start ü 9\n180 sto");
    assertThat(EventFile.open(f)).isEqualTo(Map.of("u4", 150L, "ü", 170L));
    assertThat(EventFile.leaseLostTimes(f)).containsExactly(130L);
    assertThat(EventFile.read(f).events()).hasSize(8);
    assertThat(EventFile.read(f).problems()).isEmpty();
    assertThat(EventFile.open(dir.resolve("missing"))).isEmpty();
  }

  @Test
  void startsSinceReadsBackwardsAcrossBlocksAndSkipsLeaseLostTimes() throws Exception {
    Path f = dir.resolve("long.events");
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 20_000; i++) { // ~400 KB: several 64 KB blocks, lines cut at block boundaries
      s.append(1000 + i).append(" start unit-").append(i % 500).append(' ').append(i).append('\n');
    }
    s.append("50 lease-lost\n"); // a fence time earlier than the lines before it
    s.append("30000 start ü-last 99999\n");
    s.append("30001 start partial"); // being written
    Files.writeString(f, s.toString());
    Map<String, Long> since = EventFile.startsSince(f, 1000 + 19_000);
    assertThat(since).hasSize(501).containsEntry("ü-last", 30000L).containsEntry("unit-0", 1000L + 19_000);
    assertThat(since).containsEntry("unit-499", 1000L + 19_499);
    assertThat(EventFile.startsSince(f, 0)).hasSize(501).containsEntry("unit-7", 1007L);
    assertThat(EventFile.startsSince(f, 40_000)).isEmpty();
  }
}
