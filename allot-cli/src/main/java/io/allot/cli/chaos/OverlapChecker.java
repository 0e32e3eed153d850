package io.allot.cli.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Proves from event logs alone that no unit ever had two owners at once.
 *
 * <p>Input: one event file per worker incarnation (lines {@code <epoch-millis> start <unit> <token>},
 * {@code <epoch-millis> stop <unit>}, {@code <epoch-millis> lease-lost}), plus, from the chaos
 * driver, the time each incarnation was killed. An ownership interval starts at {@code start} and
 * ends at its {@code stop}, at a {@code lease-lost} of that incarnation (whose time is the moment
 * the worker's lease stopped being valid, when it self-fenced), or at the incarnation's kill time.
 * An interval still open at the end of the run ends at the end of the run.
 */
public final class OverlapChecker {

  /** One ownership interval. */
  public record Interval(String unit, String owner, long token, long start, long end) {}

  /** A pair of intervals of one unit that overlap. */
  public record Overlap(Interval a, Interval b) {}

  /** Result of a check. */
  public record Report(int intervals, List<Overlap> overlaps, List<String> problems, Map<String, List<Interval>> byUnit) {}

  private OverlapChecker() {}

  /**
   * @param files event file per incarnation (its name is the owner's label)
   * @param killedAt incarnation label -> kill time (epoch millis), for incarnations killed with SIGKILL
   * @param endOfRun when the run ended (epoch millis)
   */
  public static Report check(Map<String, Path> files, Map<String, Long> killedAt, long endOfRun) throws IOException {
    List<Interval> all = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Path> e : files.entrySet()) {
      String owner = e.getKey();
      Map<String, long[]> open = new HashMap<>(); // unit -> {start, token}
      List<String> lines = Files.exists(e.getValue()) ? Files.readAllLines(e.getValue(), StandardCharsets.UTF_8) : List.of();
      long last = Long.MIN_VALUE;
      for (String line : lines) {
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.trim().split(" ");
        long t;
        try {
          t = Long.parseLong(f[0]);
        } catch (NumberFormatException ex) {
          problems.add(owner + ": bad line '" + line + "'");
          continue;
        }
        last = Math.max(last, t);
        switch (f[1]) {
          case "start" -> {
            if (open.containsKey(f[2])) {
              problems.add(owner + ": started " + f[2] + " twice without a stop");
            }
            open.put(f[2], new long[] {t, Long.parseLong(f[3])});
          }
          case "stop" -> {
            long[] s = open.remove(f[2]);
            if (s == null) {
              problems.add(owner + ": stop of " + f[2] + " that was not started");
            } else {
              all.add(new Interval(f[2], owner, s[1], s[0], t));
            }
          }
          case "lease-lost" -> {
            for (Map.Entry<String, long[]> o : open.entrySet()) {
              all.add(new Interval(o.getKey(), owner, o.getValue()[1], o.getValue()[0], t));
            }
            open.clear();
          }
          default -> {
            // other lines (info) are ignored
          }
        }
      }
      long end = killedAt.getOrDefault(owner, endOfRun);
      for (Map.Entry<String, long[]> o : open.entrySet()) {
        all.add(new Interval(o.getKey(), owner, o.getValue()[1], o.getValue()[0], end));
      }
    }
    Map<String, List<Interval>> byUnit = new TreeMap<>();
    for (Interval i : all) {
      byUnit.computeIfAbsent(i.unit(), k -> new ArrayList<>()).add(i);
    }
    List<Overlap> overlaps = new ArrayList<>();
    for (List<Interval> list : byUnit.values()) {
      list.sort(Comparator.comparingLong(Interval::start).thenComparingLong(Interval::end));
      // sweep: keep the interval reaching furthest
      Interval reach = null;
      for (Interval i : list) {
        if (reach != null && i.start() < reach.end()) {
          overlaps.add(new Overlap(reach, i));
        }
        if (reach == null || i.end() > reach.end()) {
          reach = i;
        }
      }
      // fencing tokens grow with every new owner
      for (int k = 1; k < list.size(); k++) {
        if (list.get(k).token() <= list.get(k - 1).token() && !list.get(k).owner().equals(list.get(k - 1).owner())) {
          problems.add("unit " + list.get(k).unit() + ": token " + list.get(k).token() + " of " + list.get(k).owner()
              + " is not larger than the earlier owner's " + list.get(k - 1).token());
        }
      }
    }
    return new Report(all.size(), overlaps, problems, byUnit);
  }
}
