package io.allot.store.jobs;

/**
 * A job's status, with the code every store keeps (the seed design's codes; SQL users query them as numbers).
 *
 * <pre>
 *   enqueue ──▶ TODO(0) ──claim──▶ PROCESSING(30) ──finish──▶ FINISHED(50)
 *                  ▲                    │  │
 *                  │ lock expired,      │  └──fail──▶ FAILED(20) ──due──▶ claim again
 *                  │ or given back      │
 *                  └────────────────────┘              │
 *                                        attempts used up ──▶ IGNORED(70)
 * </pre>
 */
public enum JobStatus {
  /**
   * Waiting for its first attempt, sent back by hand ({@link JobQueue#retry}), or given back by a worker that shut
   * down ({@link JobQueue#giveBack}).
   */
  TODO(0),
  /** Its last attempt failed; it runs again when its backoff is over. */
  FAILED(20),
  /** A worker holds its lock; runnable again when the lock expires. */
  PROCESSING(30),
  /** A handler returned and the store accepted the completion: done. */
  FINISHED(50),
  /** Gave up: attempts used up, or ignored by hand. Kept with its last error (the dead-letter state). */
  IGNORED(70);

  private final int code;

  JobStatus(int code) {
    this.code = code;
  }

  /** The stored code: 0, 20, 30, 50 or 70. */
  public int code() {
    return code;
  }

  /** True for {@link #FINISHED} and {@link #IGNORED}: nothing more happens to the job unless retried by hand. */
  public boolean isFinal() {
    return this == FINISHED || this == IGNORED;
  }

  /**
   * The status with this stored code.
   *
   * @throws IllegalArgumentException naming the code if it is none of 0, 20, 30, 50, 70
   */
  public static JobStatus ofCode(int code) {
    for (JobStatus s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown job status code " + code + " (known: 0, 20, 30, 50, 70)");
  }
}
