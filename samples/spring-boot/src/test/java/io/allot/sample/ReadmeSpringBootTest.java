package io.allot.sample;

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
 * The Spring Boot guide's code (docs/spring-boot.md, linked from the README) is the sample's: its {@code ```java} block with {@code @SpringBootApplication}
 * stands line for line in {@code SampleApplication.java} (so the suite compiles and starts it), and its
 * {@code ```properties} block in {@code application.properties}. Edit both together.
 */
class ReadmeSpringBootTest {
  private static final Path ROOT = Path.of("../..");

  @Test
  void theJavaBlockIsTheSampleApplication() throws IOException {
    List<String> block = block("java", "@SpringBootApplication");
    List<String> source = Files.readAllLines(Path.of("src/main/java/io/allot/sample/SampleApplication.java"));
    assertThat(block).hasSizeGreaterThan(20);
    assertThat(Collections.indexOfSubList(source, block))
        .as("The guide's Spring Boot block, line for line, in SampleApplication.java:%n%s", String.join("\n", block))
        .isNotNegative();
  }

  @Test
  void thePropertiesBlockIsTheSamplesSettings() throws IOException {
    List<String> block = block("properties", "allot.worker.pool");
    List<String> source = Files.readAllLines(Path.of("src/main/resources/application.properties"));
    assertThat(Collections.indexOfSubList(source, block))
        .as("The guide's properties block, line for line, in application.properties:%n%s", String.join("\n", block))
        .isNotNegative();
  }

  /** The first fenced block of {@code language} in the guide that contains {@code marker}. */
  static List<String> block(String language, String marker) throws IOException {
    List<String> current = null;
    for (String line : Files.readAllLines(ROOT.resolve("docs/spring-boot.md"), StandardCharsets.UTF_8)) {
      if (current == null && line.equals("```" + language)) {
        current = new ArrayList<>();
      } else if (current != null && line.equals("```")) {
        if (String.join("\n", current).contains(marker)) {
          return current;
        }
        current = null;
      } else if (current != null) {
        current.add(line);
      }
    }
    throw new AssertionError("docs/spring-boot.md has no ```" + language + " block containing " + marker);
  }
}
