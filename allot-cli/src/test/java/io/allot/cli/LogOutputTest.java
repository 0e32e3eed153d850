package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.PostgresSchema;
import io.allot.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a command prints besides its answer, as a new user sees it (in-process, the log on standard error): one
 * timestamp format, no INFO line of the connection pool, one INFO line for a migration and none when there is nothing
 * to migrate, each store finding once per process.
 */
class LogOutputTest {
  /** A log line of slf4j-simple: {@code <ISO-8601 time> LEVEL Logger - message}. */
  private static final Pattern LOG_LINE = Pattern.compile("^(\\S+) (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - .*");
  private static final Pattern ISO_TIME = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)");
  /** Any line a logger may have printed: a level word among its first few words. */
  private static final Pattern ANY_LOG_LINE = Pattern.compile("^(\\S+ ){0,3}\\[?(TRACE|DEBUG|INFO|WARN|ERROR)\\]? .*");

  /** Runs {@code run} with System.err captured; returns what the loggers and the command printed, as lines. */
  private static List<String> stderrOf(Supplier<CliRun> run) {
    PrintStream before = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    CliRun r;
    try {
      r = run.get();
    } finally {
      System.setErr(before);
    }
    assertThat(r.code()).as(r.err()).isZero();
    return (buf.toString(StandardCharsets.UTF_8) + r.err()).lines().toList();
  }

  private static void assertOneTimestampFormat(List<String> lines) {
    for (String l : lines) {
      if (!l.startsWith("allot: ") && ANY_LOG_LINE.matcher(l).matches()) { // "allot: ..." is the command's own line
        var m = LOG_LINE.matcher(l);
        assertThat(m.matches()).as("a log line in the one format: " + l).isTrue();
        assertThat(m.group(1)).as("its time: " + l).matches(ISO_TIME);
      }
    }
  }

  @Test
  void postgresqlCommandsLogNoPoolInfoAndOneLineForAMigration() {
    try (PostgresSchema schema = PostgresSchema.create("log_output")) {
      List<String> first = stderrOf(() -> CliRun.of("units", "list", "--pool", "p", "-store", schema.uri()));
      assertOneTimestampFormat(first);
      assertThat(first).as(String.join("\n", first)).noneMatch(l -> l.contains("hikari") || l.contains("Hikari"))
          .filteredOn(l -> l.contains("migrat") || l.contains("applied")).hasSize(1)
          .allMatch(l -> l.contains(" INFO ") && l.contains("schema " + schema.name() + " migrated from version 0"));
      List<String> again = stderrOf(() -> CliRun.of("units", "list", "--pool", "p", "-store", schema.uri()));
      assertOneTimestampFormat(again);
      assertThat(again).as(String.join("\n", again)).noneMatch(l -> l.contains("Hikari") || l.contains("migrat"));
    }
  }

  @Test
  void redisFindingsAreSaidOncePerProcess() {
    try (RedisServer redis = RedisServer.start()) { // an address of its own: no earlier test said its findings
      List<String> out = new java.util.ArrayList<>();
      out.addAll(stderrOf(() -> CliRun.of("units", "list", "--pool", "p", "-store", redis.uri())));
      out.addAll(stderrOf(() -> CliRun.of("units", "add", "--pool", "p", "-store", redis.uri(), "u1")));
      assertOneTimestampFormat(out);
      assertThat(out).as(String.join("\n", out)).filteredOn(l -> l.contains("appendonly no")).hasSize(1);
      assertThat(out).noneMatch(l -> l.contains("lettuce") || l.contains("netty"));
    }
  }
}
