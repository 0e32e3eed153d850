import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Names what failed in a Maven build, for the last lines of a CI log: every failed or errored test (class and method)
 * with the first lines of its assertion or exception and the report that holds the rest, read from the surefire and
 * failsafe XML reports under {@code ROOT/*}{@code /target}; then the build log's own error lines (a crashed fork, a
 * compile error, a plugin failure), which no test report records.
 *
 * <p>Run with the JDK alone (no build needed): {@code java .ci/Failures.java ROOT [BUILD_LOG]}. Copies the reports of
 * the failed test classes to {@code ROOT/target/test-failures/} so they survive a clean.
 */
public class Failures {
  private static final int MESSAGE_LINES = 6;

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    Path kept = root.resolve("target/test-failures");
    List<String> out = new ArrayList<>();
    int failed = 0;
    for (Path xml : reports(root)) {
      Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
      NodeList cases = suite.getElementsByTagName("testcase");
      boolean copied = false;
      for (int i = 0; i < cases.getLength(); i++) {
        Element tc = (Element) cases.item(i);
        Element problem = first(tc, "failure");
        String kind = "FAILED";
        if (problem == null) {
          problem = first(tc, "error");
          kind = "ERROR ";
        }
        if (problem == null) {
          continue;
        }
        failed++;
        Path module = root.relativize(xml).getName(0);
        out.add(kind + " " + tc.getAttribute("classname") + "." + tc.getAttribute("name") + "  (" + module + ", "
            + tc.getAttribute("time") + " s)");
        String message = problem.getAttribute("message");
        String text = problem.getTextContent() == null ? "" : problem.getTextContent().strip();
        String type = problem.getAttribute("type");
        List<String> lines = new ArrayList<>();
        if (!type.isEmpty()) {
          lines.add(type + (message.isEmpty() ? "" : ":"));
        }
        (message.isEmpty() ? text : message).lines().map(String::strip).filter(l -> !l.isEmpty())
            .limit(MESSAGE_LINES).forEach(lines::add);
        text.lines().map(String::strip).filter(l -> l.startsWith("at io.allot.")).limit(2).forEach(lines::add);
        lines.forEach(l -> out.add("    " + l));
        Path txt = xml.resolveSibling(xml.getFileName().toString().replaceFirst("^TEST-", "").replaceFirst(
            "\\.xml$", ".txt"));
        out.add("    report: " + root.relativize(Files.exists(txt) ? txt : xml));
        if (!copied) {
          Files.createDirectories(kept);
          Files.copy(xml, kept.resolve(xml.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          Path output = xml.resolveSibling(xml.getFileName().toString().replaceFirst("^TEST-", "")
              .replaceFirst("\\.xml$", "-output.txt"));
          if (Files.exists(output)) {
            Files.copy(output, kept.resolve(output.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
          copied = true;
        }
      }
    }
    List<String> buildErrors = new ArrayList<>();
    if (args.length > 1 && Files.exists(Path.of(args[1]))) {
      for (String line : Files.readAllLines(Path.of(args[1]))) {
        String l = line.strip();
        if (l.startsWith("[ERROR] Failed to execute goal") || l.contains("The forked VM terminated")
            || l.startsWith("[ERROR] Crashed tests:") || l.matches("\\[ERROR\\] .*\\.java:\\[\\d+,\\d+\\] .*")
            || l.startsWith("[ERROR] Tests run:") && l.contains("Time elapsed")) {
          buildErrors.add(l.length() > 400 ? l.substring(0, 400) + " ..." : l);
        }
      }
    }
    System.out.println();
    System.out.println("==================== what failed ====================");
    if (failed == 0 && buildErrors.isEmpty()) {
      System.out.println("no failed test in the reports and no error line in the build log");
    }
    out.forEach(System.out::println);
    if (!buildErrors.isEmpty()) {
      System.out.println("build log (" + args[1] + "):");
      buildErrors.stream().distinct().forEach(l -> System.out.println("    " + l));
    }
    if (failed > 0) {
      System.out.println(failed + " failed test(s); their reports are also copied to " + root.relativize(kept));
    }
  }

  private static List<Path> reports(Path root) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path m : modules.filter(Files::isDirectory).sorted().toList()) {
        for (String dir : List.of("target/surefire-reports", "target/failsafe-reports")) {
          Path d = m.resolve(dir);
          if (Files.isDirectory(d)) {
            try (Stream<Path> files = Files.list(d)) {
              files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).sorted().forEach(out::add);
            }
          }
        }
      }
    }
    return out;
  }

  private static Element first(Element parent, String tag) {
    NodeList l = parent.getElementsByTagName(tag);
    return l.getLength() == 0 ? null : (Element) l.item(0);
  }
}
