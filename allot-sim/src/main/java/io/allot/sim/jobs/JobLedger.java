package io.allot.sim.jobs;

import io.allot.sim.SimViolation;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.Job;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What the clients of one job queue saw, and the invariants that must hold for any interleaving of it: each call is
 * recorded with its start and end on one timeline (nanos; the simulated store clock in {@link JobSim}, {@code
 * System.nanoTime()} in {@link JobRounds}) and checked at once against the calls recorded before, whatever order the
 * threads record them in; {@link #checkQueue} checks the queue itself at a quiet moment (no call in flight).
 *
 * <ul>
 *   <li>{@code no job lost}: every enqueued key is in the queue unless a purge of age A ended at least A after the
 *       last call that surely changed the job started (claim, accepted finish or fail, retry or ignore by hand):
 *       a purge deletes only jobs final and unchanged for A;</li>
 *   <li>{@code one completion per attempt}: at most one accepted finish or fail per token;</li>
 *   <li>{@code stale token refused}: a finish, fail or extend with a token that started after a claim of the same job
 *       with a larger token ended is refused;</li>
 *   <li>{@code tokens increase}: a claim that started after another claim of the job ended has a larger token;</li>
 *   <li>{@code attempts <= max}: in every claim and every job read;</li>
 *   <li>{@code rate bound}: the claims that started after {@code limitRate(r)} ended (and ended before the next one
 *       started) took at most {@code r × (last end − limitRate's start) + max(1, r)} jobs.</li>
 * </ul>
 *
 * <p>Thread-safe: every method is synchronized.
 */
public final class JobLedger {
  /** One job as the clients know it; guarded by the ledger. */
  private static final class Seen {
    final int maxAttempts;
    /** Start of the last call that surely changed the job in the store (its {@code updated_at} is not before). */
    long changedFrom;
    boolean gone;
    /** Claims: token, start, end. */
    final List<long[]> claims = new ArrayList<>();
    /** Accepted completions and extends: token, start, 1 if a completion. */
    final List<long[]> accepted = new ArrayList<>();

    Seen(int maxAttempts, long at) {
      this.maxAttempts = maxAttempts;
      this.changedFrom = at;
    }
  }

  /** A rate set by {@code limitRate}; guarded by the ledger. */
  private static final class Epoch {
    final double rate;
    final long from;
    final long after;
    long until = Long.MAX_VALUE;
    long claimed;
    long lastEnd;

    Epoch(double rate, long from, long after) {
      this.rate = rate;
      this.from = from;
      this.after = after;
      this.lastEnd = after;
    }
  }

  private final long slackNanos;
  private final Map<String, Seen> jobs = new TreeMap<>();
  /** Purges: age, end. */
  private final List<long[]> purges = new ArrayList<>();
  private final List<Epoch> epochs = new ArrayList<>();
  private final Map<String, Long> counts = new TreeMap<>();
  /** Set once a call's answer was lost (it may have applied unseen): the last token is then a lower bound only. */
  private boolean answersLost;

  /**
   * @param slackNanos how far the clients' timeline may be off the store's when a purge's age is judged (0 when the
   *                   timeline is the store's clock)
   */
  public JobLedger(long slackNanos) {
    this.slackNanos = slackNanos;
  }

  /** Jobs enqueued by {@code enqueue} (all of them new keys: the call added every one). */
  public synchronized void enqueued(Map<String, Integer> maxAttemptsByKey, long start) {
    maxAttemptsByKey.forEach((k, m) -> {
      if (jobs.putIfAbsent(k, new Seen(m, start)) != null) {
        throw new IllegalArgumentException("key " + k + " enqueued twice by the simulation");
      }
    });
    count("enqueued", maxAttemptsByKey.size());
  }

  /** Keys whose enqueue failed without an answer: they are judged no more. */
  public synchronized void withdrawn(Collection<String> keys) {
    keys.forEach(k -> jobs.get(k).gone = true);
  }

  /** Every key enqueued so far, in order. */
  public synchronized List<String> keys() {
    return new ArrayList<>(jobs.keySet());
  }

  /** The jobs a claim returned. */
  public synchronized void claimed(List<ClaimedJob> got, long start, long end) {
    for (ClaimedJob c : got) {
      Seen s = seen(c.key());
      if (c.attempt() > s.maxAttempts || c.maxAttempts() != s.maxAttempts) {
        throw new SimViolation("attempts <= max", c.key() + " claimed as attempt " + c.attempt() + " of "
            + c.maxAttempts() + " (enqueued with " + s.maxAttempts + ")");
      }
      for (long[] o : s.claims) {
        if (o[0] == c.token()) {
          throw new SimViolation("tokens increase", c.key() + " handed out twice with token " + c.token());
        }
        if ((o[2] < start && o[0] > c.token()) || (end < o[1] && c.token() > o[0])) {
          throw new SimViolation("tokens increase", c.key() + ": a later claim got token " + Math.min(o[0], c.token())
              + " below an earlier claim's " + Math.max(o[0], c.token()));
        }
      }
      for (long[] a : s.accepted) {
        if (a[0] < c.token() && a[1] > end) {
          throw new SimViolation("stale token refused", staleMessage(c.key(), a[0], c.token(), a[2] == 1));
        }
      }
      s.claims.add(new long[] {c.token(), start, end});
      s.changedFrom = Math.max(s.changedFrom, start);
    }
    count("claimed", got.size());
    Epoch e = epochOf(start, end);
    if (e != null && e.rate > 0 && !got.isEmpty()) {
      e.claimed += got.size();
      e.lastEnd = Math.max(e.lastEnd, end);
      checkRate(e);
    }
  }

  /** A finish or fail answered; {@code accepted} if the store applied it. */
  public synchronized void completed(String key, long token, boolean accepted, long start, long end) {
    count(accepted ? "completions accepted" : "completions refused", 1);
    if (accepted) {
      Seen s = seen(key);
      for (long[] a : s.accepted) {
        if (a[0] == token && a[2] == 1) {
          throw new SimViolation("one completion per attempt", key + ": a second completion of token " + token
              + " accepted");
        }
      }
      acceptedWith(s, key, token, start, true);
      s.changedFrom = Math.max(s.changedFrom, start);
    }
  }

  /** An extend answered. */
  public synchronized void extended(String key, long token, boolean accepted, long start) {
    count(accepted ? "extends accepted" : "extends refused", 1);
    if (accepted) {
      acceptedWith(seen(key), key, token, start, false);
    }
  }

  private void acceptedWith(Seen s, String key, long token, long start, boolean completion) {
    if (s.claims.stream().noneMatch(c -> c[0] == token)) {
      throw new SimViolation("stale token refused", key + ": token " + token + " was never handed out but a "
          + (completion ? "completion" : "extend") + " with it was accepted");
    }
    for (long[] c : s.claims) {
      if (c[0] > token && c[2] < start) {
        throw new SimViolation("stale token refused", staleMessage(key, token, c[0], completion));
      }
    }
    s.accepted.add(new long[] {token, start, completion ? 1 : 0});
  }

  private static String staleMessage(String key, long token, long newer, boolean completion) {
    return key + ": a " + (completion ? "completion" : "extend") + " with token " + token + " accepted after a claim"
        + " with token " + newer + " had ended";
  }

  /** A retry or ignore by hand of {@code keys} that counted {@code n} of them in the queue. */
  public synchronized void byHand(Collection<String> keys, int n, long start) {
    count("changed by hand", n);
    if (n == keys.size()) { // every one of them was there: each surely changed
      keys.forEach(k -> seen(k).changedFrom = Math.max(seen(k).changedFrom, start));
    }
  }

  /** A call failed without an answer (e.g. the store was busy): it may have been applied unseen. */
  public synchronized void answerLost() {
    answersLost = true;
    count("answers lost", 1);
  }

  /** A purge of age {@code ageNanos} that ended at {@code end}, deleting {@code n}. */
  public synchronized void purged(long ageNanos, int n, long end) {
    purges.add(new long[] {ageNanos, end});
    count("purged", n);
  }

  /** A {@code limitRate(rate)}. */
  public synchronized void rateSet(double rate, long start, long end) {
    if (!epochs.isEmpty()) {
      epochs.get(epochs.size() - 1).until = start;
    }
    epochs.add(new Epoch(rate, start, end));
  }

  private Epoch epochOf(long start, long end) {
    for (int i = epochs.size() - 1; i >= 0; i--) {
      Epoch e = epochs.get(i);
      if (start >= e.after && end <= e.until) {
        return e;
      }
    }
    return null;
  }

  private void checkRate(Epoch e) {
    double elapsed = (e.lastEnd - e.from) / 1e9;
    double bound = e.rate * elapsed + Math.max(1.0, e.rate);
    if (e.claimed > Math.floor(bound + 1e-9)) {
      throw new SimViolation("rate bound", String.format(java.util.Locale.ROOT, "%d jobs claimed at %s/s in %.3f s:"
          + " bound %.1f", e.claimed, e.rate, elapsed, bound));
    }
  }

  /**
   * Checks the queue at a quiet moment (no call in flight): every key read through {@code get}; {@code now} on the
   * ledger's timeline. Returns how many keys are in the queue.
   */
  public synchronized int checkQueue(Function<String, Optional<Job>> get, long now) {
    int present = 0;
    for (Map.Entry<String, Seen> e : jobs.entrySet()) {
      Seen s = e.getValue();
      if (s.gone) {
        continue;
      }
      Optional<Job> j = get.apply(e.getKey());
      if (j.isPresent()) {
        present++;
        Job job = j.get();
        if (job.attempts() > job.maxAttempts()) {
          throw new SimViolation("attempts <= max", e.getKey() + " has " + job.attempts() + " attempts of "
              + job.maxAttempts());
        }
        long last = s.claims.stream().mapToLong(c -> c[0]).max().orElse(0);
        if (answersLost ? job.token() < last : job.token() != last) {
          throw new SimViolation("tokens increase", e.getKey() + " holds token " + job.token()
              + " but the last token handed out was " + last);
        }
        continue;
      }
      boolean purgedLegally = purges.stream().anyMatch(p -> p[1] - s.changedFrom >= p[0] - slackNanos);
      if (!purgedLegally) {
        throw new SimViolation("no job lost", e.getKey() + " is gone, but no purge could delete it: it last changed"
            + " at " + (s.changedFrom / 1_000_000) + " ms and no purge ended its age after that (purges: "
            + describePurges() + ")");
      }
      s.gone = true;
      count("seen purged", 1);
    }
    return present;
  }

  private String describePurges() {
    StringBuilder b = new StringBuilder();
    int from = Math.max(0, purges.size() - 5);
    for (int i = from; i < purges.size(); i++) {
      b.append(i > from ? ", " : "").append("age ").append(purges.get(i)[0] / 1_000_000).append(" ms ended at ")
          .append(purges.get(i)[1] / 1_000_000).append(" ms");
    }
    return purges.isEmpty() ? "none" : (purges.size() > 5 ? "... " : "") + b;
  }

  private Seen seen(String key) {
    Seen s = jobs.get(key);
    if (s == null) {
      throw new SimViolation("no job lost", "the store answered about " + key + ", which was never enqueued");
    }
    return s;
  }

  private void count(String what, long n) {
    counts.merge(what, n, Long::sum);
  }

  /** What was seen how often. */
  public synchronized Map<String, Long> counts() {
    Map<String, Long> out = new TreeMap<>(counts);
    long ratedClaims = epochs.stream().mapToLong(e -> e.claimed).sum();
    out.put("claimed under a rate limit", ratedClaims);
    return out;
  }

  /** How many keys were enqueued. */
  public synchronized int size() {
    return jobs.size();
  }

  /** Keys the ledger knows as not purged yet (a copy). */
  public synchronized List<String> live() {
    List<String> out = new ArrayList<>();
    jobs.forEach((k, s) -> {
      if (!s.gone) {
        out.add(k);
      }
    });
    return out;
  }

  /** Key to attempt limit of {@code jobs}, for {@link #enqueued}. */
  static Map<String, Integer> maxAttempts(Collection<io.allot.store.jobs.NewJob> jobs) {
    Map<String, Integer> m = new HashMap<>();
    jobs.forEach(j -> m.put(j.key(), j.maxAttempts()));
    return m;
  }
}
