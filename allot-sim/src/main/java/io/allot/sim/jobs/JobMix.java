package io.allot.sim.jobs;

import static java.util.Map.entry;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The operation mix of a run: how often each {@link JobOp} is drawn, and the sizes it draws. {@link #standard()}
 * mixes everything; {@link #purgeRace()} races retries by hand of old finished jobs against purges (hole 1 of issue
 * 18's third pass); {@link #rateRace()} is claimers against a low rate limit (hole 2).
 *
 * @param name       for reports
 * @param weights    how often each op is drawn, relative to the others (missing: never)
 * @param claimMax   at most this many jobs per claim
 * @param handBatch  at most this many keys per retry or ignore by hand
 * @param purgeAges  the ages a purge draws from
 * @param purgeMax   at most this many jobs per purge
 * @param rates      the rates a {@code limitRate} draws from (0 removes the limit)
 * @param lockMin    the shortest lock TTL drawn
 * @param lockMax    the longest lock TTL drawn
 */
public record JobMix(String name, Map<JobOp, Integer> weights, int claimMax, int handBatch, List<Duration> purgeAges,
    int purgeMax, List<Double> rates, Duration lockMin, Duration lockMax) {

  public JobMix {
    weights = Map.copyOf(weights);
    if (weights.values().stream().mapToInt(Integer::intValue).sum() <= 0) {
      throw new IllegalArgumentException("weights: at least one op must have a positive weight but were " + weights);
    }
    if (claimMax < 1 || handBatch < 1 || purgeMax < 1) {
      throw new IllegalArgumentException("claimMax, handBatch and purgeMax must be >= 1 but were " + claimMax + ", "
          + handBatch + ", " + purgeMax);
    }
    purgeAges = List.copyOf(purgeAges);
    rates = List.copyOf(rates);
  }

  /** Every op; short locks and backoffs so that expiries, late completions and rate limits all happen. */
  public static JobMix standard() {
    Map<JobOp, Integer> w = Map.ofEntries(
        entry(JobOp.ENQUEUE, 8),
        entry(JobOp.CLAIM, 14),
        entry(JobOp.EXTEND, 5),
        entry(JobOp.FINISH, 10),
        entry(JobOp.FINISH_ALL, 4),
        entry(JobOp.FAIL, 7),
        entry(JobOp.RETRY, 4),
        entry(JobOp.IGNORE, 2),
        entry(JobOp.PURGE, 4),
        entry(JobOp.LIMIT_RATE, 1),
        entry(JobOp.STATS, 1),
        entry(JobOp.ADVANCE, 2));
    return new JobMix("standard", w, 5, 5, List.of(Duration.ZERO, Duration.ofMillis(50), Duration.ofSeconds(1)), 20,
        List.of(0.0, 0.0, 5.0, 50.0), Duration.ofMillis(20), Duration.ofSeconds(2));
  }

  /**
   * Retries by hand of many jobs finished earlier, racing purges of old final jobs: a purge that waited for a job's
   * row while a retry made it runnable must leave it alone.
   */
  public static JobMix purgeRace() {
    Map<JobOp, Integer> w = Map.ofEntries(
        entry(JobOp.ENQUEUE, 3),
        entry(JobOp.CLAIM, 6),
        entry(JobOp.FINISH_ALL, 6),
        entry(JobOp.RETRY, 10),
        entry(JobOp.PURGE, 10));
    return new JobMix("purge race", w, 40, 2, List.of(Duration.ofMillis(300)), 200, List.of(0.0),
        Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  /** Claimers against a low rate limit (set between rounds by the driver), finishing what they claim. */
  public static JobMix rateRace() {
    Map<JobOp, Integer> w = Map.ofEntries(
        entry(JobOp.CLAIM, 20),
        entry(JobOp.FINISH_ALL, 2));
    return new JobMix("rate race", w, 5, 1, List.of(Duration.ZERO), 1, List.of(20.0), Duration.ofSeconds(30),
        Duration.ofSeconds(30));
  }

  /** This mix with another weight for {@code op} (0: never). */
  public JobMix with(JobOp op, int weight) {
    Map<JobOp, Integer> w = new EnumMap<>(JobOp.class);
    w.putAll(weights);
    w.put(op, weight);
    return new JobMix(name, w, claimMax, handBatch, purgeAges, purgeMax, rates, lockMin, lockMax);
  }

  /** An op drawn by weight. */
  public JobOp draw(Random rnd) {
    int total = weights.values().stream().mapToInt(Integer::intValue).sum();
    int x = rnd.nextInt(total);
    for (JobOp op : JobOp.values()) {
      x -= weights.getOrDefault(op, 0);
      if (x < 0) {
        return op;
      }
    }
    throw new IllegalStateException("unreachable: weights " + weights);
  }
}
