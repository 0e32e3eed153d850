package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The top level of {@code allot}: subcommands, help, unknown commands. */
class MainTest {
  @Test
  void anUnknownCommandExitsWith2NamingItEvenWithHelp() {
    for (String[] args : new String[][] {{"nosuch"}, {"nosuch", "--help"}, {"--help", "nosuch"}, {"nosuch", "-h"},
        {"nosuch", "--version"}, {"nosuch", "server"}}) {
      CliRun r = CliRun.of(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(r.err()).as(String.join(" ", args))
          .isEqualTo("allot: unknown command 'nosuch'; use one of: assign, server, worker, job, task, units, route, dev, help" + System.lineSeparator());
      assertThat(r.out()).as(String.join(" ", args)).isEmpty();
    }
  }

  @Test
  void helpAndKnownCommandsStillWork() {
    CliRun r = CliRun.of("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("server").contains("worker").doesNotContain("bench");
    r = CliRun.of("server", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("-store").contains("-redis-addrs");
    r = CliRun.of("help", "worker");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("--pool");
    assertThat(CliRun.of().code()).isZero();
  }
}
