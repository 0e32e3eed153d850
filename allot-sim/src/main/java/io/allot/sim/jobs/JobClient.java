package io.allot.sim.jobs;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One simulated client of a job queue: it draws an op of the {@link JobMix}, calls the queue, records the call with
 * its start and end in the {@link JobLedger} (which checks it), and keeps the jobs it holds. Completions sometimes
 * use a token that no longer holds the lock (one the client finished or failed before, or a job it held past its
 * lock), so that refusals are exercised.
 *
 * <p>Not thread-safe: one thread per client; the {@link Shared} state is.
 */
public final class JobClient {

  /** What the clients of one run share: the next key number and the keys whose finish was accepted. */
  public static final class Shared {
    private final AtomicInteger next = new AtomicInteger();
    /** Guarded by itself. */
    private final List<String> finished = new ArrayList<>();

    String newKey() {
      return "j" + next.incrementAndGet();
    }

    void finished(String key) {
      synchronized (finished) {
        finished.add(key);
      }
    }

    /** A key finished earlier (null if none). */
    String someFinished(Random rnd) {
      synchronized (finished) {
        return finished.isEmpty() ? null : finished.get(rnd.nextInt(finished.size()));
      }
    }
  }

  /** What one call did, for the trace and the step checks. */
  public record Call(JobOp op, List<String> keys, long token, String result, boolean refused) {
    @Override
    public String toString() {
      return describe(0);
    }

    /** As a trace line, the token shown relative to {@code tokenBase} (the store's time origin, in µs). */
    public String describe(long tokenBase) {
      return op.name().toLowerCase(java.util.Locale.ROOT) + " " + (keys.size() > 6 ? keys.subList(0, 6) + "+"
          + (keys.size() - 6) : keys) + (token != 0 ? " token " + (token - tokenBase) : "") + " -> " + result;
    }
  }

  private final String name;
  private final JobQueue queue;
  private final JobLedger ledger;
  private final LongSupplier clock;
  private final JobMix mix;
  private final Shared shared;
  private final List<ClaimedJob> held = new ArrayList<>();
  /** Tokens this client used before (key, token), for completions that must be refused. */
  private final List<ClaimedJob> spent = new ArrayList<>();

  /**
   * @param clock the ledger's timeline, in nanos
   */
  public JobClient(String name, JobQueue queue, JobLedger ledger, LongSupplier clock, JobMix mix, Shared shared) {
    this.name = name;
    this.queue = queue;
    this.ledger = ledger;
    this.clock = clock;
    this.mix = mix;
    this.shared = shared;
  }

  /** Its name, e.g. {@code c3}. */
  public String name() {
    return name;
  }

  /** Draws and does one op; null if the store was unavailable (the call may have applied unseen). */
  public Call act(Random rnd) {
    JobOp op = mix.draw(rnd);
    try {
      return act(op, rnd);
    } catch (StoreUnavailableException e) {
      ledger.answerLost();
      if (op == JobOp.FINISH_ALL || op == JobOp.FINISH || op == JobOp.FAIL) {
        held.clear(); // whether applied or not, the client lets them go (their locks expire)
      }
      return null;
    }
  }

  /** An op drawn from the mix. */
  public JobOp draw(java.util.Random rnd) {
    return mix.draw(rnd);
  }

  /** Does {@code op}. */
  public Call act(JobOp op, Random rnd) {
    return switch (op) {
      case ENQUEUE -> enqueue(rnd);
      case CLAIM -> claim(rnd);
      case EXTEND -> extend(rnd);
      case FINISH -> finish(rnd);
      case FINISH_ALL -> finishAll();
      case FAIL -> fail(rnd);
      case RETRY, IGNORE -> byHand(op, rnd);
      case PURGE -> purge(rnd);
      case LIMIT_RATE -> limitRate(mix.rates().get(rnd.nextInt(mix.rates().size())));
      case STATS -> new Call(op, List.of(), 0, queue.stats(5).counts().toString(), false);
      case ADVANCE -> new Call(op, List.of(), 0, "thinks", false);
    };
  }

  private Call enqueue(Random rnd) {
    List<NewJob> jobs = new ArrayList<>();
    int n = 1 + rnd.nextInt(5);
    for (int i = 0; i < n; i++) {
      NewJob j = NewJob.of(shared.newKey(), "d").withPriority(rnd.nextInt(5) - 2).withMaxAttempts(1 + rnd.nextInt(3));
      jobs.add(rnd.nextInt(5) == 0 ? j.withDelay(Duration.ofMillis(rnd.nextInt(500))) : j);
    }
    // known to the ledger before the call: another client may claim them before this one hears back
    ledger.enqueued(JobLedger.maxAttempts(jobs), clock.getAsLong());
    int added;
    try {
      added = queue.enqueue(jobs);
    } catch (RuntimeException e) {
      ledger.withdrawn(jobs.stream().map(NewJob::key).toList()); // added or not: not judged
      throw e;
    }
    if (added != n) {
      throw new io.allot.sim.SimViolation("no job lost", "enqueue of " + n + " new keys added " + added);
    }
    return new Call(JobOp.ENQUEUE, jobs.stream().map(NewJob::key).toList(), 0, "added " + added, false);
  }

  private Call claim(Random rnd) {
    int max = 1 + rnd.nextInt(mix.claimMax());
    long lockMs = mix.lockMin().toMillis()
        + (long) (rnd.nextDouble() * (mix.lockMax().toMillis() - mix.lockMin().toMillis()));
    long t0 = clock.getAsLong();
    List<ClaimedJob> got = queue.claim(name, max, Duration.ofMillis(lockMs));
    ledger.claimed(got, t0, clock.getAsLong());
    held.addAll(got);
    return new Call(JobOp.CLAIM, got.stream().map(c -> c.key() + "#" + c.attempt()).toList(), 0,
        got.size() + " of " + max + ", lock " + lockMs + " ms", false);
  }

  /** A held job (removed if {@code take}), or now and then a spent token; null if none. */
  private ClaimedJob pick(Random rnd, boolean take) {
    if (!spent.isEmpty() && (held.isEmpty() || rnd.nextInt(6) == 0)) {
      return spent.get(rnd.nextInt(spent.size()));
    }
    if (held.isEmpty()) {
      return null;
    }
    int i = rnd.nextInt(held.size());
    return take ? held.remove(i) : held.get(i);
  }

  private void spend(ClaimedJob c) {
    spent.add(c);
    if (spent.size() > 20) {
      spent.remove(0);
    }
  }

  private Call extend(Random rnd) {
    ClaimedJob c = pick(rnd, false);
    if (c == null) {
      return new Call(JobOp.EXTEND, List.of(), 0, "nothing held", false);
    }
    long t0 = clock.getAsLong();
    boolean ok = queue.extend(c.key(), c.token(), mix.lockMax());
    ledger.extended(c.key(), c.token(), ok, t0);
    return new Call(JobOp.EXTEND, List.of(c.key()), c.token(), ok ? "extended" : "refused", !ok);
  }

  private Call finish(Random rnd) {
    ClaimedJob c = pick(rnd, true);
    if (c == null) {
      return new Call(JobOp.FINISH, List.of(), 0, "nothing held", false);
    }
    long t0 = clock.getAsLong();
    JobOutcome o = queue.finish(c.key(), c.token());
    ledger.completed(c.key(), c.token(), o.accepted(), t0, clock.getAsLong());
    done(c, o);
    return new Call(JobOp.FINISH, List.of(c.key()), c.token(), o.name(), !o.accepted());
  }

  private Call finishAll() {
    if (held.isEmpty()) {
      return new Call(JobOp.FINISH_ALL, List.of(), 0, "nothing held", false);
    }
    Map<String, Long> tokens = new LinkedHashMap<>();
    Map<String, ClaimedJob> byKey = new LinkedHashMap<>();
    for (ClaimedJob c : held) {
      tokens.put(c.key(), c.token()); // a key held twice (lock lost, claimed again): the later token
      byKey.put(c.key(), c);
    }
    held.clear();
    long t0 = clock.getAsLong();
    Map<String, JobOutcome> out = queue.finishAll(tokens);
    long t1 = clock.getAsLong();
    int accepted = 0;
    for (ClaimedJob c : byKey.values()) {
      JobOutcome o = out.get(c.key());
      if (o == null) {
        throw new io.allot.sim.SimViolation("one completion per attempt", "finishAll gave no outcome for " + c.key());
      }
      ledger.completed(c.key(), c.token(), o.accepted(), t0, t1);
      done(c, o);
      accepted += o.accepted() ? 1 : 0;
    }
    return new Call(JobOp.FINISH_ALL, List.copyOf(tokens.keySet()), 0, accepted + " of " + tokens.size()
        + " finished", accepted < tokens.size());
  }

  private void done(ClaimedJob c, JobOutcome o) {
    spend(c);
    if (o == JobOutcome.FINISHED) {
      shared.finished(c.key());
    }
  }

  private Call fail(Random rnd) {
    ClaimedJob c = pick(rnd, true);
    if (c == null) {
      return new Call(JobOp.FAIL, List.of(), 0, "nothing held", false);
    }
    Duration backoff = Duration.ofMillis(rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(500));
    long t0 = clock.getAsLong();
    JobOutcome o = queue.fail(c.key(), c.token(), "failed by " + name, backoff);
    ledger.completed(c.key(), c.token(), o.accepted(), t0, clock.getAsLong());
    done(c, o);
    return new Call(JobOp.FAIL, List.of(c.key()), c.token(), o.name() + " (backoff " + backoff.toMillis() + " ms)",
        !o.accepted());
  }

  private Call byHand(JobOp op, Random rnd) {
    List<String> all = ledger.live();
    if (all.isEmpty()) {
      return new Call(op, List.of(), 0, "no keys", false);
    }
    int n = 1 + rnd.nextInt(mix.handBatch());
    java.util.Set<String> keys = new java.util.LinkedHashSet<>();
    for (int i = 0; i < n; i++) {
      String f = op == JobOp.RETRY && rnd.nextInt(4) != 0 ? shared.someFinished(rnd) : null;
      keys.add(f != null ? f : all.get(rnd.nextInt(all.size())));
    }
    List<String> ks = List.copyOf(keys);
    long t0 = clock.getAsLong();
    int counted = op == JobOp.RETRY ? queue.retry(ks) : queue.ignore(ks);
    ledger.byHand(ks, counted, t0);
    return new Call(op, ks, 0, counted + " in the queue", false);
  }

  private Call purge(Random rnd) {
    Duration age = mix.purgeAges().get(rnd.nextInt(mix.purgeAges().size()));
    int max = 1 + rnd.nextInt(mix.purgeMax());
    int n = queue.purge(age, max);
    ledger.purged(age.toNanos(), n, clock.getAsLong());
    return new Call(JobOp.PURGE, List.of(), 0, n + " deleted (age " + age.toMillis() + " ms, max " + max + ")",
        false);
  }

  /** Sets the rate limit and tells the ledger. */
  public Call limitRate(double rate) {
    long t0 = clock.getAsLong();
    queue.limitRate(rate);
    ledger.rateSet(rate, t0, clock.getAsLong());
    return new Call(JobOp.LIMIT_RATE, List.of(), 0, "rate " + rate + "/s", false);
  }

  /** The jobs it holds now. */
  public List<ClaimedJob> held() {
    return List.copyOf(held);
  }
}
