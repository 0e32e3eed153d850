package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.testkit.Signals.Signal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SignalsTest {

  /** The state letter of /proc/PID/stat: R, S, T (stopped), Z... */
  private static char state(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }

  @Test
  void stopContAndKillAProcess() throws Exception {
    assertThat(Signals.available()).isTrue();
    Process p = new ProcessBuilder("sleep", "60").start();
    try {
      Signals.send(p, Signal.STOP);
      await().atMost(Duration.ofSeconds(10)).until(() -> state(p.pid()) == 'T');
      Signals.send(p.pid(), Signal.CONT);
      await().atMost(Duration.ofSeconds(10)).until(() -> state(p.pid()) != 'T');
      Signals.send(p, Signal.KILL);
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isEqualTo(128 + 9);
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void termEndsAProcessAndAMissingOneIsAnError() throws Exception {
    Process p = new ProcessBuilder("sleep", "60").start();
    Signals.send(p, Signal.TERM);
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(128 + 15);
    assertThatThrownBy(() -> Signals.send(p, Signal.KILL)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Long.toString(p.pid()));
    assertThatThrownBy(() -> Signals.send(p, Signal.STOP)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Signals.send(ProcessHandle.current().pid(), Signal.KILL))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
