package io.allot.cli.guides;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README, the guides under {@code docs/} and the modules' READMEs leads somewhere: the file
 * or folder exists, and a {@code #fragment} names a heading of the linked Markdown file (GitHub's anchor rule).
 */
class DocLinksTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path md : markdownFiles()) {
      boolean inCode = false;
      int n = 0;
      for (String line : Files.readAllLines(md, StandardCharsets.UTF_8)) {
        n++;
        if (line.startsWith("```")) {
          inCode = !inCode;
        }
        Matcher m = LINK.matcher(line);
        while (!inCode && m.find()) {
          String problem = problem(md, m.group(1));
          if (problem != null) {
            broken.add(ROOT.relativize(md) + ":" + n + ": " + m.group(1) + ": " + problem);
          }
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void theAnchorRuleIsGitHubs() {
    assertThat(anchor("Routing (gRPC client side): `allot-route`")).isEqualTo("routing-grpc-client-side-allot-route");
    assertThat(anchor("What is guaranteed, and on what it rests")).isEqualTo("what-is-guaranteed-and-on-what-it-rests");
    assertThat(problem(ROOT.resolve("README.md"), "docs/units.md#no-such-heading")).contains("no heading");
    assertThat(problem(ROOT.resolve("README.md"), "docs/no-such-file.md")).contains("no such file");
  }

  private static List<Path> markdownFiles() throws IOException {
    List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules.map(p -> p.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(files::add);
    }
    return files;
  }

  /** What is wrong with {@code link} written in {@code md}, or null. */
  static String problem(Path md, String link) {
    if (link.matches("^[a-z]+:.*")) {
      return null; // http:, https:, mailto: — not checked here (no network)
    }
    int hash = link.indexOf('#');
    String file = hash < 0 ? link : link.substring(0, hash);
    String fragment = hash < 0 ? null : link.substring(hash + 1);
    Path target = file.isEmpty() ? md : md.getParent().resolve(file).normalize();
    if (!Files.exists(target)) {
      return "no such file " + ROOT.relativize(target);
    }
    if (fragment == null || !target.toString().endsWith(".md")) {
      return null;
    }
    try {
      return headings(target).contains(fragment) ? null : "no heading with anchor #" + fragment + " in "
          + ROOT.relativize(target);
    } catch (IOException e) {
      return "cannot read: " + e.getMessage();
    }
  }

  private static Set<String> headings(Path md) throws IOException {
    Set<String> anchors = new HashSet<>();
    boolean inCode = false;
    for (String line : Files.readAllLines(md, StandardCharsets.UTF_8)) {
      if (line.startsWith("```")) {
        inCode = !inCode;
      } else if (!inCode && line.startsWith("#")) {
        anchors.add(anchor(line.replaceFirst("^#+\\s*", "")));
      }
    }
    return anchors;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped (but {@code -} and {@code _}), spaces to dashes. */
  static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }
}
