package io.allot.testkit.overlap;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Proves from ownership intervals alone that no unit ever had two owners at once, and that fencing tokens only
 * grow: the safety check of the soaks, the failover benchmark and the worker tests.
 *
 * <p>An interval is one owner running one unit from {@code start} to {@code end} (any one clock for all intervals:
 * epoch millis from event files, {@link System#nanoTime()} in one JVM). Two intervals of a unit overlap when one
 * starts before the other ended (an end equal to the next start is a clean hand-off). Tokens, along a unit's
 * intervals in start order: a new owner's token must be larger than the previous owner's, and one owner's must never
 * go down (a repeated claim by the same session keeps its token, which is allowed).
 *
 * <p>Where the intervals come from: {@link #check(Map, Map, long)} reads workers' {@link EventFile}s;
 * {@link OwnershipLog} records them live in one JVM; {@link #check(Collection)} takes them as they are.
 */
public final class OverlapChecker {

  /**
   * One owner running one unit.
   *
   * @param token the fencing token the owner ran it with
   * @param start when it started
   * @param end   when it ended (its stop, its owner's lease loss or death, or the end of the run)
   */
  public record Interval(String unit, String owner, long token, long start, long end) {
    public Interval {
      Objects.requireNonNull(unit, "unit");
      Objects.requireNonNull(owner, "owner");
    }

    @Override
    public String toString() {
      return unit + " on " + owner + " (token " + token + ") [" + start + ", " + end + ")";
    }
  }

  /** Two intervals of one unit that overlap: {@code b} started before {@code a} ended. */
  public record Overlap(Interval a, Interval b) {
    @Override
    public String toString() {
      return "unit " + a.unit() + ": " + b.owner() + " (token " + b.token() + ") started at " + b.start() + " while "
          + a.owner() + " (token " + a.token() + ") ran it until " + a.end();
    }
  }

  /**
   * The result of a check.
   *
   * @param intervals how many intervals were checked
   * @param overlaps  every overlap found
   * @param problems  token regressions and malformed input (a line that does not parse, a stop without a start,
   *                  a second start without a stop)
   * @param byUnit    the intervals of each unit, in start order
   */
  public record Report(int intervals, List<Overlap> overlaps, List<String> problems,
                       Map<String, List<Interval>> byUnit) {
    public Report {
      overlaps = List.copyOf(overlaps);
      problems = List.copyOf(problems);
      byUnit = java.util.Collections.unmodifiableMap(byUnit);
    }

    /** No overlaps and no problems. */
    public boolean clean() {
      return overlaps.isEmpty() && problems.isEmpty();
    }

    /** Every overlap and problem as a sentence, for an assertion message ({@code isEmpty()}). */
    public List<String> violations() {
      List<String> out = new ArrayList<>();
      overlaps.forEach(o -> out.add(o.toString()));
      out.addAll(problems);
      return out;
    }
  }

  private OverlapChecker() {}

  /** Checks {@code intervals} (of any units and owners). */
  public static Report check(Collection<Interval> intervals) {
    return check(intervals, List.of());
  }

  /**
   * Checks the event files of a run.
   *
   * @param files    event file per owner (a worker incarnation), by its label
   * @param killedAt label to the time (epoch millis) it was killed with SIGKILL, for the owners killed: their open
   *                 intervals end then
   * @param endOfRun when the run ended (epoch millis): intervals still open end then
   */
  public static Report check(Map<String, Path> files, Map<String, Long> killedAt, long endOfRun) {
    OpenIntervals intervals = new OpenIntervals();
    List<String> problems = new ArrayList<>();
    new TreeMap<>(files).forEach((owner, file) -> {
      EventFile.Contents contents = EventFile.read(file);
      contents.problems().forEach(p -> problems.add(owner + ": " + p));
      for (EventFile.Line e : contents.events()) {
        switch (e.kind()) {
          case START -> intervals.start(owner, e.unit(), e.token(), e.millis());
          case STOP -> {
            if (!intervals.stop(owner, e.unit(), e.millis())) {
              intervals.problem(owner + ": stop of " + e.unit() + " that was not started");
            }
          }
          case LEASE_LOST -> intervals.stopAll(owner, e.millis());
        }
      }
      intervals.stopAll(owner, killedAt.getOrDefault(owner, endOfRun));
    });
    problems.addAll(intervals.problems());
    return check(intervals.all(endOfRun), problems);
  }

  static Report check(Collection<Interval> intervals, List<String> problemsSoFar) {
    List<String> problems = new ArrayList<>(problemsSoFar);
    Map<String, List<Interval>> byUnit = new TreeMap<>();
    for (Interval i : intervals) {
      byUnit.computeIfAbsent(i.unit(), k -> new ArrayList<>()).add(i);
    }
    List<Overlap> overlaps = new ArrayList<>();
    for (List<Interval> list : byUnit.values()) {
      list.sort(Comparator.comparingLong(Interval::start).thenComparingLong(Interval::end));
      Interval reach = null; // the interval reaching furthest so far
      for (Interval i : list) {
        if (reach != null && i.start() < reach.end()) {
          overlaps.add(new Overlap(reach, i));
        }
        if (reach == null || i.end() > reach.end()) {
          reach = i;
        }
      }
      for (int k = 1; k < list.size(); k++) {
        Interval before = list.get(k - 1);
        Interval after = list.get(k);
        boolean sameOwner = after.owner().equals(before.owner());
        if (sameOwner ? after.token() < before.token() : after.token() <= before.token()) {
          problems.add("unit " + after.unit() + ": token " + after.token() + " of " + after.owner()
              + (sameOwner ? " is smaller than its earlier " : " is not larger than the earlier owner's ")
              + before.token() + (sameOwner ? "" : " (" + before.owner() + ")"));
        }
      }
    }
    return new Report(intervals.size(), overlaps, problems, byUnit);
  }
}
