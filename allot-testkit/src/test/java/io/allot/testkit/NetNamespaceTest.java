package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A namespace's link carries TCP until it is cut and again after it is restored, and nothing is left behind.
 * Needs root and {@code ip}: without them this fails on CI ({@code $CI} set) and is skipped elsewhere, with the
 * reason.
 */
class NetNamespaceTest {

  @BeforeAll
  static void namespacesCanBeMade() {
    NetNamespace.unavailable().ifPresent(why -> {
      if (System.getenv("CI") != null) {
        throw new AssertionError("network namespaces are needed on CI: " + why);
      }
      Assumptions.abort("network namespaces cannot be made here: " + why);
    });
  }

  @Test
  void theLinkCarriesTcpUntilCutAndAgainWhenRestoredAndCloseRemovesEverything() throws Exception {
    NetNamespace ns = NetNamespace.create();
    try (ns; ServerSocket server = new ServerSocket()) {
      assertThat(ns.name()).matches("allot-" + ProcessHandle.current().pid() + "-\\d+");
      assertThat(ns.subnet()).matches("10\\.203\\.\\d+\\.\\d+/30");
      assertThat(ns.commandPrefix()).containsExactly("ip", "netns", "exec", ns.name());
      assertThat(ip("-n", ns.name(), "-4", "-o", "route"))
          .as("the namespace has the link's route only (no default route)")
          .contains(ns.subnet()).doesNotContain("default");
      server.bind(new InetSocketAddress(InetAddress.getByName(ns.hostAddress()), 0));
      int port = server.getLocalPort();

      assertThat(connectFromInside(ns, port, 10)).as("connect from the namespace to the host's address").isZero();
      try (Socket accepted = server.accept()) {
        assertThat(accepted.getInetAddress().getHostAddress()).isEqualTo(ns.innerAddress());
      }

      ns.cut();
      assertThat(ns.isCut()).isTrue();
      assertThat(connectFromInside(ns, port, 1)).as("a connect across the cut link hangs (timeout(1) ends it)")
          .isEqualTo(124);
      assertThat(Exec.run(List.of("ip", "route", "get", ns.innerAddress()), Duration.ofSeconds(10)).output())
          .as("no route out of the host for the namespace's address while the link is down (the blackhole)")
          .doesNotContain(" dev ");

      ns.restore();
      assertThat(ns.isCut()).isFalse();
      assertThat(connectFromInside(ns, port, 10)).as("connect after the restore").isZero();
      server.accept().close();
    }
    assertThat(ip("netns", "list")).doesNotContain(ns.name());
    assertThat(Path.of("/sys/class/net", ns.hostLink())).doesNotExist();
    assertThat(ip("route", "show", "type", "blackhole")).doesNotContain(ns.subnet());
    assertThatThrownBy(ns::cut).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    ns.close(); // idempotent
  }

  @Test
  void twoNamespacesGetTheirOwnNamesAndNetworks() {
    try (NetNamespace a = NetNamespace.create(); NetNamespace b = NetNamespace.create()) {
      assertThat(a.name()).isNotEqualTo(b.name());
      assertThat(a.subnet()).isNotEqualTo(b.subnet());
      assertThat(a.hostLink()).isNotEqualTo(b.hostLink());
    }
  }

  @Test
  void createRemovesWhatAKilledJvmLeftBehind() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    String name = "allot-" + gone.pid() + "-1";
    String link = "a" + gone.pid() + "-1h";
    ip("netns", "add", name);
    ip("link", "add", link, "type", "veth", "peer", "name", "a" + gone.pid() + "-1n", "netns", name);
    ip("addr", "add", "10.203.255.253/30", "dev", link);
    ip("route", "add", "blackhole", "10.203.255.252/30", "metric", Integer.toString(NetNamespace.BLACKHOLE_METRIC));

    NetNamespace.create().close();

    assertThat(ip("netns", "list")).doesNotContain(name);
    assertThat(Path.of("/sys/class/net", link)).doesNotExist();
    assertThat(ip("route", "show", "type", "blackhole")).doesNotContain("10.203.255.252/30");
  }

  private static String ip(String... args) {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(List.of(args));
    return Exec.check(cmd, Duration.ofSeconds(10));
  }

  /**
   * Exit status of a TCP connect from inside the namespace to the host's address, ended by timeout(1) after
   * {@code seconds} (status 124).
   */
  private static int connectFromInside(NetNamespace ns, int port, int seconds) {
    return Exec.run(inside(ns, "timeout", Integer.toString(seconds), "bash", "-c",
        "exec 3<>/dev/tcp/" + ns.hostAddress() + "/" + port), Duration.ofSeconds(seconds + 20)).exit();
  }

  private static List<String> inside(NetNamespace ns, String... command) {
    List<String> cmd = new ArrayList<>(ns.commandPrefix());
    cmd.addAll(List.of(command));
    return cmd;
  }
}
