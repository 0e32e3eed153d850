package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java in the guides is the Java the tests compile: each {@code ```java} block of the guides under {@code docs/}
 * (the README links them) must stand, line for line, in the example source that compiles it. Edit both together.
 */
class ReadmeExamplesTest {
  private static final Path ROOT = Path.of("..");
  private static final List<String> GUIDES = List.of("units.md", "tasks.md", "jobs.md", "routing.md");

  @Test
  void theWorkerExampleIsReadmeWorkerExample() throws IOException {
    List<String> block = javaBlocks(ROOT.resolve("docs/units.md")).get(0);
    List<String> source = new ArrayList<>();
    for (String line : lines(Path.of("src/test/java/io/allot/cli/ReadmeWorkerExample.java"))) {
      if (!line.startsWith("package ") && !line.startsWith("/**")) {
        source.add(line.replace("ReadmeWorkerExample", "Scraper"));
      }
    }
    while (!source.isEmpty() && source.get(0).isBlank()) {
      source.remove(0);
    }
    assertThat(block).containsExactlyElementsOf(source);
  }

  @Test
  void theFencingSnippetStandsInReadmeFenceExample() throws IOException {
    assertStandsIn(javaBlocks(ROOT.resolve("docs/units.md")).get(1), "fencing",
        "allot-fence/src/test/java/io/allot/fence/ReadmeFenceExample.java");
  }

  @Test
  void theJobSnippetStandsInReadmeJobExample() throws IOException {
    assertStandsIn(readmeBlockWith("JobWorker.builder"), "job",
        "allot-jobs/src/test/java/io/allot/jobs/ReadmeJobExample.java");
  }

  @Test
  void theTaskSnippetStandsInReadmeTaskExample() throws IOException {
    assertStandsIn(readmeBlockWith("TaskRunner.builder"), "task",
        "allot-tasks/src/test/java/io/allot/tasks/ReadmeTaskExample.java");
  }

  @Test
  void theRoutingSnippetStandsInReadmeRouteExample() throws IOException {
    for (String marker : List.of("allot://services", "AllotRouting.KEY")) {
      assertStandsIn(readmeBlockWith(marker), "routing",
          "allot-route/src/test/java/io/allot/route/ReadmeRouteExample.java");
    }
  }

  /** The first Java block of the guides that contains {@code marker}. */
  private static List<String> readmeBlockWith(String marker) throws IOException {
    List<List<String>> blocks = new ArrayList<>();
    for (String guide : GUIDES) {
      blocks.addAll(javaBlocks(ROOT.resolve("docs").resolve(guide)));
    }
    return blocks.stream().filter(b -> String.join("\n", b).contains(marker)).findFirst()
        .orElseThrow(() -> new AssertionError("no ```java block of docs/" + GUIDES + " contains " + marker));
  }

  /** Asserts that a guide's {@code what} snippet {@code block} stands, line for line, in the file {@code path}. */
  private static void assertStandsIn(List<String> block, String what, String path) throws IOException {
    List<String> source = lines(ROOT.resolve(path));
    assertThat(Collections.indexOfSubList(source, block))
        .as("the guide's %s snippet, line for line, in %s:%n%s", what, Path.of(path).getFileName(),
            String.join("\n", block))
        .isNotNegative();
  }

  private static List<List<String>> javaBlocks(Path markdown) throws IOException {
    List<List<String>> blocks = new ArrayList<>();
    List<String> current = null;
    for (String line : lines(markdown)) {
      if (current == null && line.equals("```java")) {
        current = new ArrayList<>();
      } else if (current != null && line.equals("```")) {
        blocks.add(current);
        current = null;
      } else if (current != null) {
        current.add(line);
      }
    }
    return blocks;
  }

  private static List<String> lines(Path p) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      out.add(line.stripTrailing());
    }
    return out;
  }
}
