package io.allot.testkit.overlap;

import io.allot.testkit.overlap.OverlapChecker.Interval;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns start/stop/lease-lost events into ownership intervals, per owner and unit: the one bookkeeping behind
 * {@link OverlapChecker#check(Map, Map, long)} (event files) and {@link OwnershipLog} (live, in one JVM). Not
 * thread-safe.
 */
final class OpenIntervals {
  /** owner -> unit -> {start, token}, in start order. */
  private final Map<String, Map<String, long[]>> open = new LinkedHashMap<>();
  private final List<Interval> closed = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  /** {@code owner} starts {@code unit}; a second start without a stop is a problem (the first ends here). */
  void start(String owner, String unit, long token, long time) {
    Map<String, long[]> mine = open.computeIfAbsent(owner, k -> new LinkedHashMap<>());
    long[] running = mine.put(unit, new long[] {time, token});
    if (running != null) {
      problems.add(owner + ": started " + unit + " (token " + token + ") twice without a stop");
      closed.add(new Interval(unit, owner, running[1], running[0], time));
    }
  }

  /** {@code owner} stopped {@code unit}; false if it was not running it. */
  boolean stop(String owner, String unit, long time) {
    Map<String, long[]> mine = open.get(owner);
    long[] running = mine == null ? null : mine.remove(unit);
    if (running == null) {
      return false;
    }
    closed.add(new Interval(unit, owner, running[1], running[0], time));
    return true;
  }

  /** Ends every unit {@code owner} runs (its lease was lost, it was killed). */
  void stopAll(String owner, long time) {
    Map<String, long[]> mine = open.remove(owner);
    if (mine != null) {
      mine.forEach((unit, s) -> closed.add(new Interval(unit, owner, s[1], s[0], time)));
    }
  }

  void problem(String problem) {
    problems.add(problem);
  }

  List<String> problems() {
    return List.copyOf(problems);
  }

  /** Unit to the owner running it now (the latest start, if there are several). */
  Map<String, String> running() {
    Map<String, String> out = new HashMap<>();
    Map<String, Long> since = new HashMap<>();
    open.forEach((owner, units) -> units.forEach((unit, s) -> {
      if (since.getOrDefault(unit, Long.MIN_VALUE) <= s[0]) {
        since.put(unit, s[0]);
        out.put(unit, owner);
      }
    }));
    return out;
  }

  int count() {
    return closed.size() + open.values().stream().mapToInt(Map::size).sum();
  }

  /** Every interval; those still open end at {@code now}. */
  List<Interval> all(long now) {
    List<Interval> out = new ArrayList<>(closed);
    open.forEach((owner, units) -> units.forEach((unit, s) -> out.add(new Interval(unit, owner, s[1], s[0], now))));
    return out;
  }
}
