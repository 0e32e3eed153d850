package io.allot.cli.guides;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.cli.Main;
import io.allot.testkit.Ports;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every shell command of the guides runs: each {@code ```bash} block of {@code docs/*.md} is run by bash as written,
 * with {@code bin/allot} being this build's CLI, and must exit 0 with every command it started in the background
 * ({@code &}) still running at its end. What is replaced, and why: the local Redis {@code 127.0.0.1:6379} by a
 * throwaway Redis of this test, the HTTP port {@code 9090} and the workers' ports {@code 7101}, {@code 7102} by free
 * ports, and {@code postgresql://postgres@127.0.0.1/test} by a schema of this test on the test PostgreSQL, so a run
 * never touches another's keys or ports. A block that cannot run here is preceded by {@code <!-- not run: REASON -->}
 * naming what checks it instead (e.g. Docker, which this machine does not have).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GuideCommandsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final List<String> GUIDES =
      List.of("units.md", "tasks.md", "jobs.md", "routing.md", "assignment.md", "operations.md", "spring-boot.md");
  private static final String NOT_RUN = "<!-- not run: ";

  /** One fenced shell block: the guide, its first line number, the line before the fence, its text. */
  record Block(String guide, int line, String before, String text) {
    @Override
    public String toString() {
      return guide + ":" + line;
    }
  }

  private RedisServer redis;
  private PostgresSchema schema;

  @BeforeAll
  void servers() {
    redis = RedisServer.start();
    schema = PostgresSchema.create("guide");
  }

  @AfterAll
  void stop() {
    if (schema != null) {
      schema.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  static List<Block> blocks() throws IOException {
    List<Block> blocks = new ArrayList<>();
    for (String guide : GUIDES) {
      List<String> lines = Files.readAllLines(ROOT.resolve("docs").resolve(guide), StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String fence = lines.get(i);
        if (fence.equals("```bash") || fence.equals("```sh")) {
          StringBuilder text = new StringBuilder();
          int j = i + 1;
          for (; j < lines.size() && !lines.get(j).startsWith("```"); j++) {
            text.append(lines.get(j)).append('\n');
          }
          blocks.add(new Block(guide, i + 2, i > 0 ? lines.get(i - 1) : "", text.toString()));
          i = j;
        }
      }
    }
    return blocks;
  }

  @Test
  void theGuidesHaveShellBlocksAndEachIsRunOrSaysWhyNot() throws IOException {
    List<Block> blocks = blocks();
    assertThat(blocks).as("shell blocks of the guides").hasSizeGreaterThanOrEqualTo(5);
    for (Block b : blocks) {
      if (b.before().startsWith(NOT_RUN)) {
        assertThat(b.before()).as("%s: the reason a block is not run, and what checks it instead", b)
            .matches("<!-- not run: .{10,} -->");
      }
    }
  }

  Stream<Block> runnable() throws IOException {
    return blocks().stream().filter(b -> !b.before().startsWith(NOT_RUN));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("runnable")
  void theBlockRuns(Block block, @org.junit.jupiter.api.io.TempDir Path work) throws Exception {
    Path bin = Files.createDirectories(work.resolve("bin"));
    Path allot = bin.resolve("allot");
    Files.writeString(allot, "#!/usr/bin/env bash\nexec '" + java() + "' -cp '" + System.getProperty("java.class.path")
        + "' " + Main.class.getName() + " \"$@\"\n");
    Files.setPosixFilePermissions(allot, PosixFilePermissions.fromString("rwxr-xr-x"));
    int httpPort = Ports.free();
    String redisAddress = redis.uri().replaceFirst("^redis://", "");
    String text = block.text()
        .replace("127.0.0.1:6379", redisAddress)
        .replace("localhost:9090", "localhost:" + httpPort)
        .replace("--port 7101", "--port " + Ports.free())
        .replace("--port 7102", "--port " + Ports.free())
        .replace("postgresql://postgres@127.0.0.1/test", "'" + schema.uri() + "'");
    // the EXIT trap stops what the block started in the background however the block ends (a failed command too)
    String script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\n" + text
        + "\nfor pid in $(jobs -p); do kill -0 \"$pid\" 2>/dev/null || { echo \"a background command exited early ("
        + "pid $pid)\" >&2; exit 97; }; done\n";
    Path file = work.resolve("block.sh");
    Files.writeString(file, script);
    Path log = Files.createDirectories(Path.of("target", "guides"))
        .resolve(block.guide().replace(".md", "") + "-" + block.line() + ".log");
    ProcessBuilder pb = new ProcessBuilder("bash", file.toString()).directory(work.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    // a loaded CI machine may take more than the default 2 s to set up a connection; the guides' commands do not care
    env.put("STORE", redis.uri() + "?connect_timeout=10s&timeout=10s");
    env.put("PROM_PORT", Integer.toString(httpPort));
    Process p = pb.start();
    boolean ended = p.waitFor(180, TimeUnit.SECONDS);
    if (!ended) {
      p.descendants().forEach(ProcessHandle::destroy); // bash's EXIT trap cannot run on SIGKILL: its children first
      p.destroy();
      p.waitFor(20, TimeUnit.SECONDS);
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String output = Files.readString(log);
    assertThat(ended).as("%s ended within 180 s; output:%n%s", block, output).isTrue();
    assertThat(p.exitValue()).as("%s exit code; script:%n%s%noutput:%n%s", block, script, output).isZero();
  }

  private static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }
}
