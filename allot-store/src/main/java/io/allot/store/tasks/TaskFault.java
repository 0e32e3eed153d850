package io.allot.store.tasks;

import java.util.Objects;

/**
 * The failures of a task's handler under one run, as the worker running it reports them.
 *
 * @param failures        handler failures in the current window
 * @param failing         true when the failures passed the worker's limit: the task is then {@code Failed} and
 *                        restarted with backoff until it runs cleanly for a window
 * @param lastError       the last error (cut to {@link TaskLimits#MAX_ERROR_CHARS} characters, one fewer where the cut
 *                        would split a surrogate pair; a NUL or unpaired surrogate, which not every store can keep,
 *                        replaced by U+FFFD)
 * @param lastErrorMillis when it happened, epoch milliseconds on the worker's clock
 */
public record TaskFault(int failures, boolean failing, String lastError, long lastErrorMillis) {
  public TaskFault {
    Objects.requireNonNull(lastError, "lastError");
    if (lastError.length() > TaskLimits.MAX_ERROR_CHARS) {
      int end = TaskLimits.MAX_ERROR_CHARS;
      if (Character.isHighSurrogate(lastError.charAt(end - 1))) {
        end--; // never half a surrogate pair: it is not text a store could keep (UTF-8 has no encoding for it)
      }
      lastError = lastError.substring(0, end);
    }
    lastError = TaskLimits.storable(lastError);
  }
}
