package io.allot.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who runs which unit, in real time, across members: {@link #open} when a member starts a unit, {@link #close} when it
 * has stopped (before it confirms). A unit opened while another member (or the same one) still runs it is a violation
 * of "no unit runs on two members at once".
 */
final class IntervalLog {
  record Interval(String unit, String member, long token, long startNanos, long endNanos) {}

  private final Map<String, Interval> open = new HashMap<>();
  private final List<Interval> closed = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();

  synchronized void open(String unit, String member, long token) {
    Interval running = open.get(unit);
    if (running != null) {
      violations.add("unit " + unit + " started on " + member + " (token " + token + ") while " + running.member()
          + " (token " + running.token() + ") still runs it");
    }
    open.put(unit, new Interval(unit, member, token, System.nanoTime(), -1));
  }

  synchronized void close(String unit, String member) {
    Interval running = open.get(unit);
    if (running != null && running.member().equals(member)) {
      open.remove(unit);
      closed.add(new Interval(unit, member, running.token(), running.startNanos(), System.nanoTime()));
    }
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized int intervals() {
    return closed.size() + open.size();
  }

  synchronized Map<String, String> running() {
    Map<String, String> out = new HashMap<>();
    open.forEach((u, i) -> out.put(u, i.member()));
    return out;
  }

  /** Tokens of a unit's successive runs must strictly increase. */
  synchronized List<String> tokenViolations() {
    Map<String, List<Interval>> byUnit = new HashMap<>();
    closed.forEach(i -> byUnit.computeIfAbsent(i.unit(), k -> new ArrayList<>()).add(i));
    open.values().forEach(i -> byUnit.computeIfAbsent(i.unit(), k -> new ArrayList<>()).add(i));
    List<String> out = new ArrayList<>();
    byUnit.forEach((u, list) -> {
      list.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
      for (int k = 1; k < list.size(); k++) {
        if (list.get(k).token() <= list.get(k - 1).token()) {
          out.add("unit " + u + ": token " + list.get(k).token() + " after " + list.get(k - 1).token());
        }
      }
    });
    return out;
  }
}
