package io.allot.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.bench.AssignRow.Churn;
import io.allot.bench.AssignRow.Measured;
import io.allot.bench.AssignRow.Move;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Everything one run of {@code bench assign} measured, and its two renderings: the text table ({@link #table()}) and
 * a JSON document ({@link #json()}).
 */
public record AssignReport(AssignOptions options, List<AssignRow> rows, Environment environment, double totalSeconds) {

  private static final JsonMapper JSON = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
      .build();

  public AssignReport {
    rows = List.copyOf(rows);
  }

  /**
   * The row of {@code strategy} at (n, m).
   *
   * @throws IllegalArgumentException if it was not measured
   */
  public AssignRow row(String strategy, int n, int m) {
    for (AssignRow r : rows) {
      if (r.strategy().equals(strategy) && r.n() == n && r.m() == m) {
        return r;
      }
    }
    throw new IllegalArgumentException("no row for " + strategy + " N=" + n + " M=" + m);
  }

  /** The report as {@link AssignOptions#json()} asks: JSON or the table. */
  public String render() {
    return options.json() ? json() : table();
  }

  // ------------------------------------------------------------------------------------------------------- table

  /** The human table, then one line about the JVM. */
  public String table() {
    String[] head = {
      "strategy", "N", "M", "max/ideal", "max-ceil", "leave/opt", "join/opt", "repl%", "add%", "rm%", "ns/unit",
      "xmodulo", "leave ms", "join ms", "repl ms", "add ms", "rm ms", "upd=full", "total s"
    };
    List<String[]> cells = new ArrayList<>();
    cells.add(head);
    for (AssignRow r : rows) {
      if (!r.ok()) {
        cells.add(new String[] {r.strategy(), Integer.toString(r.n()), Integer.toString(r.m()), "error: " + r.error()});
        continue;
      }
      Measured x = r.measured();
      cells.add(
          new String[] {
            r.strategy(),
            Integer.toString(r.n()),
            Integer.toString(r.m()),
            fmt(x.maxOverIdeal(), 4),
            x.maxOverCeil() == Long.MIN_VALUE ? "-" : String.format(Locale.ROOT, "%+d", x.maxOverCeil()),
            fmt(x.leave().ratio(), 4),
            fmt(x.join().ratio(), 4),
            fmt(x.churn().othersMovedPercent(), 3),
            fmt(x.added().othersMovedPercent(), 3),
            fmt(x.removed().othersMovedPercent(), 3),
            fmt(r.fullNanosPerUnit(), 1),
            fmt(r.fullVsModulo(), 2),
            fmt(x.leave().updateMillis(), 3),
            fmt(x.join().updateMillis(), 3),
            fmt(x.churn().updateMillis(), 3),
            fmt(x.added().updateMillis(), 3),
            fmt(x.removed().updateMillis(), 3),
            x.check(),
            fmt(r.totalSeconds(), 2)
          });
    }
    // an error row spans the measure columns: only its first three count for the widths
    int[] width = new int[head.length];
    for (String[] row : cells) {
      for (int i = 0; i < (row.length == head.length ? row.length : 3); i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (String[] row : cells) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        if (i > 0) {
          line.append("  ");
        }
        if (i == 0) { // left-aligned
          line.append(row[0]).append(" ".repeat(width[0] - row[0].length()));
        } else if (i == 3 && row.length == 4) { // the error message
          line.append(row[i]);
        } else { // right-aligned
          line.append(" ".repeat(Math.max(0, width[i] - row[i].length()))).append(row[i]);
        }
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    b.append(environment).append("; ").append(rows.size()).append(" rows in ").append(fmt(totalSeconds, 1)).append(" s\n");
    return b.toString();
  }

  /** {@code v} with {@code decimals} decimals; {@code -} for NaN, {@code inf} for infinity. */
  static String fmt(double v, int decimals) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "inf" : "-inf";
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  // -------------------------------------------------------------------------------------------------------- JSON

  /** The report as a JSON document. Numbers are rounded as in the table (or finer); NaN and infinity are null. */
  public String json() {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("benchmark", "allot bench assign");
    ObjectNode o = doc.putObject("options");
    o.put("quick", options.quick());
    options.strategies().forEach(o.putArray("strategies")::add);
    options.sizes().forEach(o.putArray("sizes")::add);
    options.members().forEach(o.putArray("members")::add);
    options.ratios().forEach(o.putArray("ratios")::add);
    o.put("repeat", options.repeat() == 0 ? "auto" : Integer.toString(options.repeat()));
    ObjectNode env = doc.putObject("environment");
    env.put("jvm", environment.jvm());
    env.put("javaVersion", environment.javaVersion());
    env.put("cores", environment.cores());
    env.put("maxHeapBytes", environment.maxHeapBytes());
    env.put("gc", environment.gc());
    put(doc, "totalSeconds", totalSeconds, 3);
    ArrayNode list = doc.putArray("rows");
    for (AssignRow r : rows) {
      ObjectNode j = list.addObject();
      j.put("strategy", r.strategy());
      j.put("n", r.n());
      j.put("m", r.m());
      j.put("ok", r.ok());
      if (!r.ok()) {
        j.put("error", r.error());
        j.put("errorPhase", r.errorPhase());
      } else {
        Measured x = r.measured();
        put(j, "maxOverIdeal", x.maxOverIdeal(), 6);
        if (x.maxOverCeil() == Long.MIN_VALUE) {
          j.putNull("maxOverCeil");
        } else {
          j.put("maxOverCeil", x.maxOverCeil());
        }
        move(j.putObject("leave"), x.leave());
        move(j.putObject("join"), x.join());
        churn(j.putObject("churn"), x.churn());
        churn(j.putObject("add"), x.added());
        churn(j.putObject("remove"), x.removed());
        ObjectNode full = j.putObject("full");
        put(full, "medianMs", r.fullMillis(), 4);
        put(full, "nsPerUnit", r.fullNanosPerUnit(), 3);
        put(full, "vsModulo", r.fullVsModulo(), 4);
        full.put("samples", x.fullSamples());
        j.put("updateSamples", x.updateSamples());
        j.put("incremental", x.incremental());
        j.put("updateEqualsFull", x.check());
      }
      put(j, "totalSeconds", r.totalSeconds(), 4);
    }
    try {
      return JSON.writeValueAsString(doc) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report as JSON", e); // a tree of plain values always writes
    }
  }

  private static void churn(ObjectNode node, Churn c) {
    node.put("replaced", c.replaced());
    node.put("others", c.others());
    node.put("othersMoved", c.othersMoved());
    put(node, "othersMovedPercent", c.othersMovedPercent(), 6);
    put(node, "updateMs", c.updateMillis(), 4);
  }

  private static void move(ObjectNode node, Move m) {
    node.put("moved", m.moved());
    node.put("optimum", m.optimum());
    put(node, "ratio", m.ratio(), 6);
    put(node, "updateMs", m.updateMillis(), 4);
  }

  /** {@code v} rounded to {@code decimals} decimals, trailing zeros dropped; null if NaN or infinite. */
  private static void put(ObjectNode node, String key, double v, int decimals) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      node.putNull(key);
    } else {
      BigDecimal d = BigDecimal.valueOf(v).setScale(decimals, RoundingMode.HALF_UP).stripTrailingZeros();
      node.put(key, d.signum() == 0 ? BigDecimal.ZERO : d);
    }
  }

  // ------------------------------------------------------------------------------------------------- environment

  /** Where the numbers were taken. */
  public record Environment(String jvm, String javaVersion, int cores, long maxHeapBytes, String gc) {
    static Environment current() {
      List<String> gcs = new ArrayList<>();
      for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
        gcs.add(b.getName());
      }
      return new Environment(
          System.getProperty("java.vm.name", "?") + " (" + System.getProperty("java.vm.vendor", "?") + ")",
          System.getProperty("java.runtime.version", System.getProperty("java.version", "?")),
          Runtime.getRuntime().availableProcessors(),
          Runtime.getRuntime().maxMemory(),
          String.join(", ", gcs));
    }

    @Override
    public String toString() {
      return "JVM " + jvm + " " + javaVersion + ", " + cores + (cores == 1 ? " core" : " cores") + ", max heap "
          + (maxHeapBytes / (1024 * 1024)) + " MiB, GC " + gc;
    }
  }
}
