package io.allot.jobs;

import io.allot.store.jobs.JobLimits;
import io.allot.store.jobs.JobQueue;
import io.micrometer.core.instrument.Counter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the store back the attempts a closing {@link JobWorker} claimed and will not run to their end (claimed while
 * it closed, waiting for a handler when the pool shut, or interrupted by close): {@link JobQueue#giveBack} makes
 * their jobs runnable again at once, the attempts not counted. Their locks are no longer extended from then on. A
 * give-back the store refuses or cannot take is logged: those jobs run again once their locks expire, and then the
 * attempt counts. Such attempts are not told to the {@link AttemptListener} (they did not end: they did not happen);
 * they are counted ({@code allot.jobs.given.back}). Never throws. Immutable.
 */
record GiveBack(JobQueue queue, String worker, LockKeeper locks, Counter givenBack) {
  private static final Logger log = LoggerFactory.getLogger(GiveBack.class);

  /**
   * Gives back the attempts of {@code held} (in store calls of at most {@link JobLimits#MAX_BATCH}).
   *
   * @param why for the log: why they did not run to their end
   * @return how many the store took back
   */
  int giveBack(List<HeldLock> held, String why) {
    int n = 0;
    for (int from = 0; from < held.size(); from += JobLimits.MAX_BATCH) {
      n += batch(held.subList(from, Math.min(held.size(), from + JobLimits.MAX_BATCH)), why);
    }
    return n;
  }

  private int batch(List<HeldLock> held, String why) {
    Map<String, Long> tokens = new LinkedHashMap<>();
    for (HeldLock l : held) {
      locks.reporting(l); // no more extensions: the store is being told
      tokens.put(l.key(), l.token());
    }
    try {
      int n = queue.giveBack(worker, tokens);
      givenBack.increment(n);
      if (n == tokens.size()) {
        log.info("queue {}: gave back {} jobs ({}): they run again now, these attempts not counted", queue.name(), n,
            why);
      } else {
        log.warn("queue {}: gave back {} of {} jobs ({}); the others' locks were no longer held", queue.name(), n,
            tokens.size(), why);
      }
      return n;
    } catch (RuntimeException e) {
      log.warn("queue {}: could not give back {} jobs ({}): they run again when their locks expire, and these "
          + "attempts count: {}", queue.name(), tokens.size(), why, e.toString());
      return 0;
    }
  }
}
