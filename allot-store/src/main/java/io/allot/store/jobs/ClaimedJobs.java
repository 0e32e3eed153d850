package io.allot.store.jobs;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * What one {@link JobQueue#claim} returned: the jobs it locked, in claim order (an unmodifiable list), and whether
 * the queue's rate limit cut the claim short ({@link #rateLimited()}). Immutable. As a list it equals any list of
 * the same jobs: the flag is not part of {@link #equals}.
 */
public final class ClaimedJobs extends AbstractList<ClaimedJob> implements RandomAccess {
  private static final ClaimedJobs NONE = new ClaimedJobs(List.of(), false);

  private final List<ClaimedJob> jobs;
  private final boolean rateLimited;

  private ClaimedJobs(List<ClaimedJob> jobs, boolean rateLimited) {
    this.jobs = jobs;
    this.rateLimited = rateLimited;
  }

  /**
   * The jobs of a claim.
   *
   * @param jobs        the locked jobs, copied
   * @param rateLimited true if the queue's rate bucket held fewer permits than the claim asked for and a runnable job
   *                    was left behind for want of a permit
   */
  public static ClaimedJobs of(List<ClaimedJob> jobs, boolean rateLimited) {
    if (jobs.isEmpty() && !rateLimited) {
      return NONE;
    }
    return new ClaimedJobs(List.copyOf(jobs), rateLimited);
  }

  /** A claim that locked nothing and was not rate limited. */
  public static ClaimedJobs none() {
    return NONE;
  }

  /**
   * True if the queue's rate limit cut this claim short: its bucket held fewer permits than asked and at least one
   * runnable job was left for want of a permit. False when the claim got all it asked for, or fewer only because
   * nothing more was runnable (an empty queue is never rate limited, even with an empty bucket).
   */
  public boolean rateLimited() {
    return rateLimited;
  }

  @Override
  public ClaimedJob get(int index) {
    return jobs.get(index);
  }

  @Override
  public int size() {
    return jobs.size();
  }

  @Override
  public String toString() {
    return rateLimited ? jobs + " (rate limited)" : jobs.toString();
  }
}
