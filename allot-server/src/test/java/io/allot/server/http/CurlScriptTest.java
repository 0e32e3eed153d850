package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API from a second language: {@code api/curl-api.sh} (curl, grep, sed only) against a live server. */
class CurlScriptTest {
  @TempDir Path dir;

  static boolean onPath(String tool) {
    try {
      Process p = new ProcessBuilder("sh", "-c", "command -v " + tool).redirectErrorStream(true).start();
      return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Test
  void curlScriptPasses() throws Exception {
    assumeTrue(onPath("curl"), "curl is not installed: the curl script test is skipped");
    assumeTrue(onPath("bash"), "bash is not installed: the curl script test is skipped");
    Path script = dir.resolve("curl-api.sh");
    try (var in = CurlScriptTest.class.getResourceAsStream("/api/curl-api.sh")) {
      Files.write(script, in.readAllBytes());
    }
    try (ApiFixture f = new ApiFixture(ApiFixture.TOKEN)) {
      Process p = new ProcessBuilder("bash", script.toString(), f.base(), ApiFixture.TOKEN, "p")
          .redirectErrorStream(true).start();
      boolean done = p.waitFor(60, TimeUnit.SECONDS);
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!done) {
        p.destroyForcibly();
      }
      assertThat(done).as("script finished: " + out).isTrue();
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out).contains("all checks passed").doesNotContain("FAIL");
      assertThat(f.store.taskSpecs("p").get("x")).as("bad input created nothing").isEmpty();
    }
  }
}
