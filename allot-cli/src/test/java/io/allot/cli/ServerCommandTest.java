package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.distributor.DistributorSettings;
import io.allot.server.ping.Pinger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ServerCommandTest {

  static DistributorSettings parse(Map<String, String> env, String... args) {
    ServerCommand cmd = new ServerCommand();
    CommandLine cl = new CommandLine(cmd);
    cl.setPosixClusteredShortOptionsAllowed(false);
    cl.setDefaultValueProvider(new EnvDefaults(env::get, Map.of("SERVICES_NAMESPACES", List.of("SERVICES_NAMESPACE"))));
    cl.parseArgs(args);
    return cmd.settings();
  }

  @Test
  void defaultsAreTheOriginals() {
    DistributorSettings s = parse(Map.of());
    assertThat(s.servicesNamespaces()).containsExactly("sys-robots-list", "sys-parsers-lists");
    assertThat(s.workunitsNamespace()).isEqualTo("sys-channels");
    assertThat(s.distributionNamespace()).isEqualTo("sys-matching-table");
    assertThat(s.pollInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.pingTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.pingMode()).isEqualTo(Pinger.Mode.AUTO);
    assertThat(s.downAfter()).isEqualTo(3);
    assertThat(s.leaderTtl()).isEqualTo(Duration.ofSeconds(6));
  }

  @Test
  void goStyleSingleDashAndDoubleDashFlagsBothWork() {
    DistributorSettings s =
        parse(Map.of(), "-services-namespaces", "a,b", "--workunits-namespace=u", "-distribution-namespace=t", "-poll-interval", "250ms",
            "-ping-timeout=100ms", "-down-after", "1", "-remove-dead", "-strategy", "seed-ring", "-ping-protocol", "legacy");
    assertThat(s.servicesNamespaces()).containsExactly("a", "b");
    assertThat(s.workunitsNamespace()).isEqualTo("u");
    assertThat(s.distributionNamespace()).isEqualTo("t");
    assertThat(s.pollInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(s.pingTimeout()).isEqualTo(Duration.ofMillis(100));
    assertThat(s.removeDead()).isTrue();
    assertThat(s.strategy()).isEqualTo("seed-ring");
    assertThat(s.pingMode()).isEqualTo(Pinger.Mode.LEGACY);
  }

  @Test
  void keysMayHoldColonsAsRedisNamesOftenDo() {
    DistributorSettings s = parse(Map.of(), "-services-namespaces", "app:robots:list,app:parsers:list",
        "-workunits-namespace", "app:channels", "-distribution-namespace", "app:matching:table");
    assertThat(s.servicesNamespaces()).containsExactly("app:robots:list", "app:parsers:list");
    assertThat(s.workunitsNamespace()).isEqualTo("app:channels");
    assertThat(s.distributionNamespace()).isEqualTo("app:matching:table");
  }

  @Test
  void environmentIsReadAndFlagsWin() {
    // the original reads POLL_INTERVAL for the ping timeout and parses the poll interval from PING_TIMEOUT; allot does not
    Map<String, String> env =
        Map.of("SERVICES_NAMESPACE", "x,y", "WORKUNITS_NAMESPACE", "wu", "POLL_INTERVAL", "2s", "PING_TIMEOUT", "300ms", "DISTRIBUTION_NAMESPACE", "dn");
    DistributorSettings s = parse(env);
    assertThat(s.servicesNamespaces()).containsExactly("x", "y");
    assertThat(s.workunitsNamespace()).isEqualTo("wu");
    assertThat(s.distributionNamespace()).isEqualTo("dn");
    assertThat(s.pollInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.pingTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(parse(Map.of("SERVICES_NAMESPACES", "plural", "SERVICES_NAMESPACE", "singular")).servicesNamespaces()).containsExactly("plural");
    assertThat(parse(env, "-poll-interval", "5s").pollInterval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void badConfigurationExitsWith2NamingTheInput() {
    assertThat(CliRun.of(Map.of(), "server", "-poll-interval", "soon")).satisfies(r -> {
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("-poll-interval").contains("soon");
    });
    assertThat(CliRun.of(Map.of("PING_TIMEOUT", "1 second"), "server").err()).contains("-ping-timeout").contains("1 second");
    assertThat(CliRun.of(Map.of(), "server", "-no-such-flag").code()).isEqualTo(2);
    assertThat(CliRun.of(Map.of(), "server", "-no-such-flag").err()).contains("-no-such-flag");
    assertThat(CliRun.of(Map.of(), "server", "-strategy", "magic").err()).contains("magic");
    assertThat(CliRun.of(Map.of(), "server", "-ping-protocol", "smoke").err()).contains("smoke");
    assertThat(CliRun.of(Map.of(), "server", "-log", "loud").err()).contains("loud");
    assertThat(CliRun.of(Map.of(), "server", "-down-after", "0").err()).contains("-down-after");
    assertThat(CliRun.of(Map.of(), "server", "-services-namespaces", "a,,b").err()).contains("-services-namespaces");
    assertThat(CliRun.of(Map.of(), "server", "-leader-ttl", "100ms").err()).contains("-leader-ttl");
  }

  @Test
  void anUnreachableStoreAtStartExitsWith2() {
    CliRun r = CliRun.of(Map.of(), "server", "-redis-addrs", "127.0.0.1:1", "-prom-port", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("allot: ").contains("redis://127.0.0.1:1").hasLineCount(1);
    r = CliRun.of(Map.of("STORE", "postgresql://postgres@127.0.0.1:1/test"), "server", "-prom-port", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("allot: ").contains("postgresql://postgres@127.0.0.1:1/test").hasLineCount(1);
  }

  /** Issue 18: a busy port said UncheckedIOException with a stack trace; now one line naming the flag, exit 2. */
  @Test
  void aBusyPortIsOneLineNamingTheFlag() throws Exception {
    try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("0.0.0.0"))) {
      CliRun r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
          CliRun.of(Map.of("STORE", "memory:"), "server", "-prom-port", String.valueOf(busy.getLocalPort())));
      assertThat(r.code()).isEqualTo(2);
      // (the memory store's own warning comes first)
      assertThat(r.err().lines().filter(l -> l.contains("-prom-port"))).singleElement().asString()
          .startsWith("allot: -prom-port " + busy.getLocalPort() + ": ").contains("in use");
      assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
  }
}
