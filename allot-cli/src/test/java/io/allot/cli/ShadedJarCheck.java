package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shaded {@code target/allot.jar}: the store providers' ServiceLoader files are merged, so the one jar opens every
 * kind of store. Runs in the {@code package} phase, after the shade plugin (see the pom), not with the unit tests.
 */
class ShadedJarCheck {
  static final Path JAR = Path.of(System.getProperty("basedir", "."), "target", "allot.jar");

  static ProcessBuilder allotJar(String... args) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-jar", JAR.toString()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd);
  }

  /** What bin/allot runs prints the version of the build (its manifest), never the IDE fallback 'dev'. */
  @Test
  void versionIsTheBuildsVersion() throws Exception {
    String expected = System.getProperty("allot.expectedVersion");
    assertThat(expected).as("set by the pom's shaded-jar execution").isNotBlank();
    for (String v : new String[] {"--version", "-V"}) {
      Process p = allotJar(v).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
      assertThat(p.exitValue()).isZero();
      assertThat(out.lines().toList()).as(v).hasSize(1).first().asString().startsWith("allot " + expected + " (Java ");
    }
  }

  @Test
  void anUnknownSchemeListsTheFormsOfEveryProvider() throws Exception {
    assertThat(JAR).exists();
    ServerProcessTest.Finished f = ServerProcessTest.finish(allotJar("server", "-store", "nosuch://x", "-prom-port", "0"));
    assertThat(f.code()).isEqualTo(2);
    assertThat(f.errLines()).hasSize(1);
    assertThat(f.errLines().get(0)).contains("'nosuch://x'").contains("memory:").contains("redis[s]://")
        .contains("redis[s]-cluster://").contains("postgresql://");
  }

  @Test
  void opensTheMemoryStoreAndLeads() throws Exception {
    Process p = allotJar("server", "-store", "memory:", "-prom-port", "0", "-services-namespaces", "g",
        "-poll-interval", "100ms", "-ping-timeout", "100ms").redirectErrorStream(true).start();
    CompletableFuture<String> leader = new CompletableFuture<>();
    StringBuilder log = new StringBuilder();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.append(line).append('\n');
          if (line.contains("pool=g leader token=")) {
            leader.complete(line);
          }
        }
      } catch (Exception ignored) {
        // ended
      }
      leader.complete(null);
    });
    reader.setDaemon(true);
    reader.start();
    try {
      assertThat(leader.get(60, TimeUnit.SECONDS)).as(log::toString).isNotNull();
    } finally {
      p.destroy();
      p.waitFor(20, TimeUnit.SECONDS);
      p.destroyForcibly();
    }
  }
}
