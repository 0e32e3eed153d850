package io.allot.store.jobs;

import io.allot.store.Durations;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * The limits every store enforces on queue names, keys and payloads, checked before anything is written: bad input
 * gets an {@link IllegalArgumentException} naming it, and nothing of the request is applied.
 */
public final class JobLimits {
  /** The longest key: 1 KiB of UTF-8. */
  public static final int MAX_KEY_BYTES = 1024;
  /** The longest queue name: 200 bytes of UTF-8 (it becomes part of Redis keys and PostgreSQL rows). */
  public static final int MAX_QUEUE_BYTES = 200;
  /** The largest payload: 1 MiB of UTF-8. */
  public static final int MAX_DATA_BYTES = 1 << 20;
  /** The largest attempt limit. */
  public static final int MAX_ATTEMPTS = 1000;
  /** Error messages are cut to this many characters when stored. */
  public static final int MAX_ERROR_CHARS = 4000;
  /** The most jobs one enqueue or claim call handles. */
  public static final int MAX_BATCH = 10_000;

  private JobLimits() {}

  /**
   * Checks a queue name, the one rule of every store: 1 to {@link #MAX_QUEUE_BYTES} characters, each an ASCII letter
   * or digit or one of {@code . _ - :} (a name then stands as it is in a Redis key, a SQL value, a URL path and a
   * metric tag: {@code mail}, {@code billing.invoices}, {@code app:emails}).
   *
   * @return the name
   * @throws IllegalArgumentException naming the name and its first character outside the rule
   */
  public static String checkQueue(String queue) {
    if (queue == null || queue.isEmpty()) {
      throw new IllegalArgumentException("queue name must be non-empty but was " + (queue == null ? "null" : "''"));
    }
    if (queue.length() > MAX_QUEUE_BYTES) {
      throw new IllegalArgumentException("queue name '" + printable(queue) + "' is " + queue.length()
          + " characters; at most " + MAX_QUEUE_BYTES);
    }
    for (int i = 0; i < queue.length(); i++) {
      char c = queue.charAt(i);
      boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
          || c == '-' || c == ':';
      if (!ok) {
        throw new IllegalArgumentException("queue name '" + printable(queue) + "' has "
            + (Character.isISOControl(c) ? "a control character" : "'" + c + "'") + " at " + i
            + ": use letters, digits and . _ - : only");
      }
    }
    return queue;
  }

  /**
   * Checks a key: 1 to {@link #MAX_KEY_BYTES} bytes of valid UTF-8.
   *
   * @return the key
   */
  public static String checkKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("job key must be non-empty but was " + (key == null ? "null" : "''"));
    }
    int bytes = utf8Length("job key '" + printable(key) + "'", key);
    if (bytes > MAX_KEY_BYTES) {
      throw new IllegalArgumentException("job key '" + printable(key) + "' is " + bytes + " bytes; at most "
          + MAX_KEY_BYTES);
    }
    return key;
  }

  /** Checks a payload: valid UTF-8, at most {@link #MAX_DATA_BYTES} bytes. */
  public static String checkData(String key, String data) {
    int bytes = utf8Length("data of job '" + printable(key) + "'", data);
    if (bytes > MAX_DATA_BYTES) {
      throw new IllegalArgumentException("data of job '" + printable(key) + "' is " + bytes + " bytes; at most "
          + MAX_DATA_BYTES);
    }
    return data;
  }

  /** An error message as stored: never null, at most {@link #MAX_ERROR_CHARS} characters, valid UTF-8. */
  public static String storedError(String error) {
    String e = error == null ? "" : error;
    if (e.length() > MAX_ERROR_CHARS) {
      e = e.substring(0, MAX_ERROR_CHARS);
    }
    StringBuilder b = new StringBuilder(e.length());
    for (int i = 0; i < e.length(); i++) {
      char c = e.charAt(i);
      if (Character.isSurrogate(c)) {
        boolean pair = Character.isHighSurrogate(c) && i + 1 < e.length() && Character.isLowSurrogate(e.charAt(i + 1));
        if (pair) {
          b.append(c).append(e.charAt(++i));
        } else {
          b.append('\uFFFD');
        }
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Checks a batch size: 1 to {@link #MAX_BATCH}. */
  public static int checkBatch(String what, int n) {
    if (n < 1 || n > MAX_BATCH) {
      throw new IllegalArgumentException(what + " must be in [1, " + MAX_BATCH + "] but was " + n);
    }
    return n;
  }

  /**
   * Checks the arguments of a claim: the worker's name ({@link #checkWorker}), {@code max} (1 to {@link #MAX_BATCH})
   * and the lock TTL ({@link #checkLockTtl}).
   *
   * @return the lock TTL in microseconds
   */
  public static long checkClaim(String worker, int max, Duration lockTtl) {
    checkWorker(worker);
    checkBatch("max", max);
    return checkLockTtl(lockTtl);
  }

  /**
   * Checks the keys of a change by hand (retry, ignore): each with {@link #checkKey}.
   *
   * @return the keys without repeats, in the order first given
   */
  public static String[] checkKeys(Collection<String> keys) {
    keys.forEach(JobLimits::checkKey);
    return new LinkedHashSet<>(keys).toArray(new String[0]);
  }

  /**
   * Checks the jobs of one enqueue: at most {@link #MAX_BATCH}, none null, no key twice.
   *
   * @return how many jobs there are
   */
  public static int checkEnqueue(Collection<NewJob> jobs) {
    if (jobs.size() > MAX_BATCH) {
      throw new IllegalArgumentException("at most " + MAX_BATCH + " jobs per enqueue but got " + jobs.size());
    }
    Set<String> seen = new HashSet<>();
    for (NewJob t : jobs) {
      Objects.requireNonNull(t, "job");
      if (!seen.add(t.key())) {
        throw new IllegalArgumentException("job key '" + t.key() + "' appears twice in one enqueue");
      }
    }
    return jobs.size();
  }

  /**
   * Checks the keys of a change by hand ({@link #checkKeys}) and makes it: {@code change} gets the keys without
   * repeats and returns how many jobs it changed; with no keys it is not called and the answer is 0.
   */
  public static int byHand(Collection<String> keys, ToIntFunction<String[]> change) {
    String[] distinct = checkKeys(keys);
    return distinct.length == 0 ? 0 : change.applyAsInt(distinct);
  }

  /**
   * The checked arguments of a failed attempt.
   *
   * @param backoffMicros the backoff in microseconds
   * @param error         the error as stored ({@link #storedError})
   */
  public record FailedAttempt(long backoffMicros, String error) {}

  /** Checks the arguments of a failed attempt: the key ({@link #checkKey}) and the backoff ({@link #checkBackoff}). */
  public static FailedAttempt checkFail(String key, String error, Duration backoff) {
    checkKey(key);
    return new FailedAttempt(checkBackoff(backoff), storedError(error));
  }

  /**
   * Checks the arguments of a give-back: the worker ({@link #checkWorker}), at most {@link #MAX_BATCH} jobs, each key
   * ({@link #checkKey}) with a token.
   *
   * @return how many jobs there are
   */
  public static int checkGiveBack(String worker, Map<String, Long> tokens) {
    checkWorker(worker);
    Objects.requireNonNull(tokens, "tokens");
    if (tokens.size() > MAX_BATCH) {
      throw new IllegalArgumentException("at most " + MAX_BATCH + " jobs per giveBack but got " + tokens.size());
    }
    tokens.forEach((key, token) -> {
      checkKey(key);
      if (token == null) {
        throw new IllegalArgumentException("token of job '" + printable(key) + "' must be given but was null");
      }
    });
    return tokens.size();
  }

  /** Checks a worker name: non-empty. */
  public static String checkWorker(String worker) {
    if (worker == null || worker.isEmpty()) {
      throw new IllegalArgumentException("worker must be a non-empty name but was "
          + (worker == null ? "null" : "''"));
    }
    return worker;
  }

  /** Checks a lock TTL (1 ms to {@link Durations#MAX_TIMEOUT}, 1 day); returns it in microseconds. */
  public static long checkLockTtl(Duration lockTtl) {
    return Durations.check("lockTtl", lockTtl, Duration.ofMillis(1), Durations.MAX_TIMEOUT).toNanos() / 1000;
  }

  /** Checks a backoff (0 to {@link Durations#MAX_DELAY}, a century); returns it in microseconds. */
  public static long checkBackoff(Duration backoff) {
    return Durations.check("backoff", backoff, Duration.ZERO, Durations.MAX_DELAY).toNanos() / 1000;
  }

  /** Checks a rate limit: 0 (none) to 1,000,000 jobs/s. */
  public static double checkRate(double jobsPerSecond) {
    if (!(jobsPerSecond >= 0) || jobsPerSecond > 1_000_000) {
      throw new IllegalArgumentException("rate limit must be in [0, 1000000] jobs/s (0 = none) but was "
          + jobsPerSecond);
    }
    return jobsPerSecond;
  }

  /** Checks an age for purging (0 to {@link Durations#MAX_DELAY}, a century). */
  public static Duration checkAge(Duration age) {
    return Durations.check("age", age, Duration.ZERO, Durations.MAX_DELAY);
  }

  private static int utf8Length(String what, String s) {
    CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer b = enc.encode(CharBuffer.wrap(s));
      return b.remaining();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(what + " is not valid UTF-8 (an unpaired surrogate)");
    }
  }

  /** At most 64 characters of {@code s}, with non-printable characters escaped, for messages. */
  static String printable(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 64; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return s.length() > 64 ? b + "…" : b.toString();
  }
}
