package io.allot.store.events;

import java.util.Collection;
import java.util.List;

/**
 * What a retry or an ignore of jobs by hand tells the event history (the CLI's {@code job retry|ignore}, and the REST
 * routes that do the same), and a job the store ignored when its attempts were used up ({@link #exhausted}): one {@code job-retried} or {@code job-ignored} event per job, subject
 * {@code <queue>/<key>}, store-wide (no pool); beyond {@value #PER_JOB} jobs one event for the rest. Written
 * best-effort through an {@link EventWriter}. Thread-safe (no state).
 */
public final class JobEvents {
  /** How many jobs of one command get an event each. */
  public static final int PER_JOB = 20;

  private final EventWriter writer;

  /** Writes through {@code writer}. */
  public JobEvents(EventWriter writer) {
    this.writer = writer;
  }

  /** {@code actor} retried {@code keys} (those the store changed) of {@code queue}. */
  public void retried(String actor, String queue, Collection<String> keys) {
    write(EventKind.JOB_RETRIED, "retried by hand: back to todo, attempts reset", actor, queue, keys);
  }

  /** {@code actor} ignored {@code keys} (those the store changed) of {@code queue}. */
  public void ignored(String actor, String queue, Collection<String> keys) {
    write(EventKind.JOB_IGNORED, "ignored by hand", actor, queue, keys);
  }

  /**
   * The job {@code key} of {@code queue} was ignored by the store when its attempt {@code attempt} failed with its
   * attempts used up ({@code actor}: where that attempt ran): one {@code job-ignored} event, written later on the
   * writer's background thread ({@link EventWriter#writeLater}), so a completion never waits for the history.
   */
  public void exhausted(String actor, String queue, String key, int attempt, String error) {
    String detail = "ignored after attempt " + attempt + " (attempts used up)"
        + (error == null || error.isEmpty() ? "" : ": " + error);
    writer.writeLater(new NewEvent(null, EventKind.JOB_IGNORED, actor, queue + "/" + key,
        detail.length() > 500 ? detail.substring(0, 500) + "…" : detail));
  }

  private void write(EventKind kind, String what, String actor, String queue, Collection<String> keys) {
    List<String> list = List.copyOf(keys);
    for (String k : list.subList(0, Math.min(PER_JOB, list.size()))) {
      writer.write(null, kind, actor, queue + "/" + k, what);
    }
    if (list.size() > PER_JOB) {
      writer.write(null, kind, actor, queue, what + ": " + (list.size() - PER_JOB) + " more jobs of the same command");
    }
  }

  /** The actor of a command-line user: {@code cli:<user name>}. */
  public static String cliActor() {
    String user = System.getProperty("user.name");
    return "cli:" + (user == null || user.isBlank() ? "unknown" : user);
  }
}
