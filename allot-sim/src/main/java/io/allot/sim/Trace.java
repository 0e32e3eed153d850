package io.allot.sim;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * The event trace of one run: every line is hashed (SHA-256), the last {@code keep} lines are kept for a failure
 * report, and with a sink every line is also passed on (a replay prints them). Two runs of one seed give the same
 * lines, so the same hash: that is what "replays exactly" means, and a test checks it.
 *
 * <p>Lines read {@code <virtual ms since start> <who> <what>}; tokens and sessions are shown relative to the store's
 * time origin ({@link SimStore#rel(long)}), which is the one value of a run that comes from the wall clock.
 *
 * <p>Not thread-safe (confined to the simulation's thread).
 */
public final class Trace {
  private final Sim sim;
  private final int keep;
  private final ArrayDeque<String> last;
  private final MessageDigest digest;
  private final Consumer<String> sink;
  private final StringBuilder line = new StringBuilder(96);
  private long lines;

  /**
   * @param keep how many of the last lines to keep for a report
   * @param sink gets every line as it is written (null: none)
   */
  public Trace(Sim sim, int keep, Consumer<String> sink) {
    this.sim = sim;
    this.keep = keep;
    this.last = new ArrayDeque<>(keep + 1);
    this.sink = sink;
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /** Appends the line {@code <now> <who> <what>}. */
  public void add(String who, String what) {
    line.setLength(0);
    appendTime(line, sim.now());
    line.append(' ').append(who).append(' ').append(what);
    String s = line.toString();
    digest.update(s.getBytes(StandardCharsets.UTF_8));
    digest.update((byte) '\n');
    lines++;
    last.addLast(s);
    if (last.size() > keep) {
      last.removeFirst();
    }
    if (sink != null) {
      sink.accept(s);
    }
  }

  /** Lines written so far. */
  public long lines() {
    return lines;
  }

  /** The last lines kept, oldest first. */
  public List<String> tail() {
    return new ArrayList<>(last);
  }

  /** The hash of every line so far (hex); the trace goes on afterwards. */
  public String hash() {
    try {
      MessageDigest copy = (MessageDigest) digest.clone();
      return HexFormat.of().formatHex(copy.digest());
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("SHA-256 digest cannot be cloned", e);
    }
  }

  /** {@code t} as milliseconds since {@link Sim#EPOCH} with microseconds, e.g. {@code 1234.567}. */
  static void appendTime(StringBuilder b, long t) {
    long us = (t - Sim.EPOCH) / 1_000L;
    b.append(us / 1_000L).append('.');
    long frac = us % 1_000L;
    if (frac < 100) {
      b.append('0');
    }
    if (frac < 10) {
      b.append('0');
    }
    b.append(frac);
  }

  /** {@code t} formatted as by {@link #appendTime}. */
  public static String time(long t) {
    StringBuilder b = new StringBuilder(16);
    appendTime(b, t);
    return b.toString();
  }
}
