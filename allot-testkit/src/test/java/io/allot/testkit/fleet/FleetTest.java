package io.allot.testkit.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.testkit.Ports;
import io.allot.testkit.overlap.EventFile;
import io.allot.testkit.overlap.OverlapChecker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fleet's process handling, on {@link FakeAllot} instead of the real CLI. */
@SuppressWarnings("try") // closed inside the block to see that close kills
class FleetTest {
  @TempDir Path dir;

  @Test
  void startsPausesKillsAndRestartsWorkersAndKnowsWhoRunsWhat() throws InterruptedException {
    try (Fleet fleet = Fleet.builder(dir).mainClass(FakeAllot.class.getName()).prefix("t-").storeArgs("-store", "x")
        .build()) {
      assertThat(fleet.pool()).isEqualTo("t-services");
      Process distributor = fleet.startDistributor();
      int port = Ports.free();
      String unit = "unit-" + port;
      Fleet.Worker w = fleet.startWorker(0, 0, port);
      assertThat(w.member()).isEqualTo("127.0.0.1:" + port);
      await().atMost(Duration.ofSeconds(30)).until(() -> fleet.everyUnitRunningOnce(List.of(unit)));
      assertThat(w.units()).isEqualTo(Set.of(unit));

      w.pause();
      assertThat(w.paused()).isTrue();
      w.resume();
      w.send("stop");
      await().atMost(Duration.ofSeconds(30)).until(() -> fleet.running().isEmpty());
      long killed = w.kill();
      assertThat(w.alive()).isFalse();
      assertThat(fleet.killedAt()).isEqualTo(Map.of("w0-0", killed));

      Fleet.Worker again = fleet.startWorker(0, 1, port);
      assertThatThrownBy(() -> fleet.startWorker(0, 1, port)).isInstanceOf(IllegalArgumentException.class);
      await().atMost(Duration.ofSeconds(30)).until(() -> fleet.running().equals(Map.of(unit, List.of("w0-1"))));
      again.pause();
      assertThat(again.terminate(30_000)).as("SIGTERM after SIGCONT").isTrue();
      assertThat(EventFile.open(fleet.eventFiles().get("w0-1"))).as("stopped on SIGTERM").isEmpty();
      assertThat(fleet.leaseLostTimes("w0-1")).isEmpty();

      OverlapChecker.Report r = OverlapChecker.check(fleet.eventFiles(), fleet.killedAt(), System.currentTimeMillis());
      assertThat(r.violations()).isEmpty();
      assertThat(r.intervals()).isEqualTo(2);
      assertThat(distributor.isAlive()).isTrue();
      fleet.close();
      assertThat(distributor.waitFor(30, TimeUnit.SECONDS)).as("close kills every process").isTrue();
    }
  }

  @Test
  void runsProcessesWhereAPlacementSays() throws Exception {
    try (Fleet fleet = Fleet.builder(dir).mainClass(FakeAllot.class.getName()).prefix("p-").storeArgs("-store", "x")
        .build()) {
      assertThat(fleet.here()).isEqualTo(new Fleet.Placement(List.of(), "127.0.0.1", List.of("-store", "x")));
      // a prefix that marks its output and then runs the command it is given, as ip netns exec does
      Fleet.Placement there = new Fleet.Placement(
          List.of("sh", "-c", "echo prefixed; exec \"$0\" \"$@\""), "10.203.0.2", List.of("-store", "y"));
      int port = Ports.free();
      Fleet.Worker w = fleet.startWorker(there, 3, 0, port);
      assertThat(w.member()).isEqualTo("10.203.0.2:" + port);
      assertThat(fleet.memberOf("w3-0")).isEqualTo("10.203.0.2:" + port);
      await().atMost(Duration.ofSeconds(30)).until(() -> fleet.everyUnitRunningOnce(List.of("unit-" + port)));
      assertThat(w.process().info().command()).as("the prefix ran the JVM in its place: signals reach it")
          .hasValueSatisfying(c -> assertThat(c).endsWith("java"));
      assertThat(Files.readString(dir.resolve("w3-0.out")))
          .startsWith("prefixed")
          .contains("--host 10.203.0.2 --port " + port)
          .contains("-store y")
          .doesNotContain("-store x");

      fleet.startDistributor();
      Process standby = fleet.startDistributor(there, "-poll-interval", "1s");
      assertThat(fleet.distributor()).isSameAs(standby);
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dir.resolve("distributor-2.out"))
          && Files.readString(dir.resolve("distributor-2.out")).contains("-store y -poll-interval 1s"));
      assertThat(Files.readString(dir.resolve("distributor-2.out"))).startsWith("prefixed");
      assertThat(w.terminate(30_000)).isTrue();
    }
  }
}
