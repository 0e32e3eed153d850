package io.allot.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/allot.json: a Grafana dashboard with one row per subsystem, every query of which names metrics of
 * the table in docs/operations.md ("Metrics"; {@code MetricNamesTest} ties that table to the registered meters),
 * each row only its own subsystem's, and every metric of the table on some panel.
 */
class GrafanaDashboardTest {
  static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "allot.json");
  /** Row title to the subsystem of its metrics, in the dashboard's order. */
  static final Map<String, String> ROWS = rows();
  static final Pattern METRIC = Pattern.compile("\\ballot_[a-z_]+");
  static final List<String> SERIES_SUFFIXES = List.of("", "_count", "_sum", "_max", "_bucket");

  private static Map<String, String> rows() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("Distributor", "distributor");
    m.put("Worker SDK", "worker");
    m.put("Long-running tasks", "tasks");
    m.put("Jobs", "jobs");
    m.put("Routing", "route");
    m.put("Store", "store");
    m.put("API", "api");
    return m;
  }

  @Test
  void oneRowPerSubsystemAndEveryQueryNamesADocumentedMetric() throws IOException {
    JsonNode dash = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertThat(dash.path("title").asText()).isEqualTo("allot");
    Set<String> documented = documented();
    assertThat(documented).hasSizeGreaterThan(40);

    List<String> rowTitles = new ArrayList<>();
    Set<String> used = new TreeSet<>();
    String subsystem = null;
    int queries = 0;
    for (JsonNode panel : dash.path("panels")) {
      String title = panel.path("title").asText();
      if (panel.path("type").asText().equals("row")) {
        rowTitles.add(title);
        subsystem = ROWS.get(title);
        assertThat(subsystem).as("row '%s' is one of %s", title, ROWS.keySet()).isNotNull();
        continue;
      }
      assertThat(subsystem).as("panel '%s' is under a row", title).isNotNull();
      assertThat(panel.path("targets").size()).as("panel '%s' has queries", title).isPositive();
      for (JsonNode target : panel.path("targets")) {
        String expr = target.path("expr").asText();
        Matcher m = METRIC.matcher(expr);
        assertThat(m.find()).as("panel '%s': query names a metric: %s", title, expr).isTrue();
        m.reset();
        while (m.find()) {
          String metric = documentedName(m.group(), documented);
          assertThat(metric).as("panel '%s': %s in docs/operations.md (query %s)", title, m.group(), expr)
              .isNotNull();
          assertThat(metric).as("panel '%s' in row of %s", title, subsystem).startsWith("allot_" + subsystem + "_");
          used.add(metric);
          queries++;
        }
      }
    }
    assertThat(rowTitles).as("one row per subsystem").containsExactlyElementsOf(ROWS.keySet());
    assertThat(used).as("every documented metric is on the dashboard").isEqualTo(documented);
    assertThat(queries).isGreaterThanOrEqualTo(documented.size());
  }

  @Test
  void aMisspelledMetricIsCaught() throws IOException {
    Set<String> documented = documented();
    assertThat(documentedName("allot_distributor_rounds_seconds_count", documented))
        .isEqualTo("allot_distributor_rounds_seconds");
    assertThat(documentedName("allot_distributor_round_seconds_count", documented)).isNull();
    assertThat(documentedName("allot_members", documented)).isNull();
  }

  /** The documented metric {@code series} belongs to (itself or with a series suffix removed), or null. */
  static String documentedName(String series, Set<String> documented) {
    for (String suffix : SERIES_SUFFIXES) {
      if (series.endsWith(suffix)) {
        String base = series.substring(0, series.length() - suffix.length());
        if (documented.contains(base)) {
          return base;
        }
      }
    }
    return null;
  }

  static Set<String> documented() throws IOException {
    return MetricNamesTest.documented();
  }

}
