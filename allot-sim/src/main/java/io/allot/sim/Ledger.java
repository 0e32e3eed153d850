package io.allot.sim;

import io.allot.worker.StopReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who runs what, as the applications see it, and the safety invariants on it:
 * <ol>
 *   <li><b>one runner</b>: at no virtual time do two runs of a unit overlap. A run lasts from the moment its handler
 *   starts until it returns; a handler told to stop by its lease (deadline passed, {@code LEASE_LOST}) returns within
 *   the fence margin, its budget, so this is stricter than "lease deadline not passed": it also proves that nobody
 *   eats into the application's stop budget;</li>
 *   <li><b>tokens</b>: the tokens of a unit's runs strictly increase from run to run, and the store never grants a
 *   unit a token below one it granted before (lost state included).</li>
 * </ol>
 * Checked where they can first fail (a run starts, a claim is granted) and again after every event ({@link
 * #check()}).
 *
 * <p>Not thread-safe (confined to the simulation's thread).
 */
final class Ledger {

  /** One run of a unit on one member process. Mutable; identity matters. */
  static final class Run {
    final String unit;
    final String process;
    final String member;
    final long token;
    final long generation;
    /** Virtual time the handler started; -1 while waiting for the previous run in its process, or never started. */
    long startAt = -1;
    /** True once the handler returned (or never ran). */
    boolean finished;
    /** The first stop asked of it (null: none). */
    StopReason reason;
    /** The handler's return, once scheduled. */
    Sim.Event returns;
    /** A later run of the same unit in the same process, waiting for this one to return. */
    Run next;

    Run(String unit, String process, String member, long token, long generation) {
      this.unit = unit;
      this.process = process;
      this.member = member;
      this.token = token;
      this.generation = generation;
    }

    boolean active() {
      return startAt >= 0 && !finished;
    }

    @Override
    public String toString() {
      return unit + "#" + token + "@" + process;
    }
  }

  private final Sim sim;
  private final SimStore store;
  /** Unit -> its runs that started and have not returned, in start order. */
  private final Map<String, List<Run>> open = new TreeMap<>();
  /** Unit -> the highest token a run of it started with. */
  private final Map<String, Long> startedTokens = new HashMap<>();
  /** Unit -> the highest token the store granted, and to which session. */
  private final Map<String, long[]> grantedTokens = new HashMap<>();
  private long starts;
  /** The first violation recorded by {@link #fail}. */
  private SimViolation failed;

  Ledger(Sim sim, SimStore store) {
    this.sim = sim;
    this.store = store;
  }

  /** {@code run}'s handler starts now: checks invariants 1 and 2. */
  void begin(Run run) {
    List<Run> runs = open.computeIfAbsent(run.unit, u -> new ArrayList<>(2));
    if (!runs.isEmpty()) {
      Run other = runs.get(0);
      throw fail(new SimViolation("1 one-runner", "unit " + run.unit + " starts on " + run.process + " (token "
          + store.rel(run.token) + ") while it still runs on " + other.process + " (token " + store.rel(other.token)
          + ", since " + Trace.time(other.startAt) + ", stop asked: " + other.reason + ")"));
    }
    Long before = startedTokens.get(run.unit);
    if (before != null && run.token <= before) {
      throw fail(new SimViolation("2 tokens", "unit " + run.unit + " starts on " + run.process + " with token "
          + store.rel(run.token) + ", not above the token " + store.rel(before) + " of an earlier run"));
    }
    startedTokens.put(run.unit, run.token);
    run.startAt = sim.now();
    runs.add(run);
    starts++;
  }

  /** {@code run}'s handler returned now. */
  void end(Run run) {
    run.finished = true;
    List<Run> runs = open.get(run.unit);
    if (runs != null && runs.remove(run) && runs.isEmpty()) {
      open.remove(run.unit);
    }
  }

  /** The store granted {@code unit} to {@code session} with {@code token}: invariant 2 at the store. */
  void granted(String unit, long session, long token) {
    long[] before = grantedTokens.get(unit);
    if (before != null && (token < before[0] || (token == before[0] && session != before[1]))) {
      throw fail(new SimViolation("2 tokens", "the store granted unit " + unit + " token " + store.rel(token)
          + " to session " + store.rel(session) + " after granting token " + store.rel(before[0]) + " to session "
          + store.rel(before[1])));
    }
    grantedTokens.put(unit, new long[] {token, session});
  }

  /**
   * Records {@code v} (the first one counts) and returns it to be thrown: a violation seen on an SDK thread (a
   * listener callback, whose exceptions the SDK logs and swallows) or inside a store operation (which the network
   * would answer as the store's error) still fails the run at the next {@link #check()}.
   */
  SimViolation fail(SimViolation v) {
    if (failed == null) {
      failed = v;
    }
    return v;
  }

  /** After every event: no violation was recorded, and no unit has two open runs. */
  void check() {
    if (failed != null) {
      throw failed;
    }
    for (List<Run> runs : open.values()) {
      if (runs.size() > 1) {
        throw new SimViolation("1 one-runner", "unit " + runs.get(0).unit + " runs " + runs.size() + " times: "
            + runs);
      }
    }
  }

  /** The runs that started and have not returned, by unit. */
  Map<String, List<Run>> open() {
    return open;
  }

  /** Runs started so far. */
  long starts() {
    return starts;
  }
}
