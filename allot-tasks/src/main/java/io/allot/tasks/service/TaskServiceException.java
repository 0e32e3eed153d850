package io.allot.tasks.service;

/**
 * A request the task API refuses, with the HTTP status that says why; the message names the bad field (e.g.
 * {@code args: must be a JSON object but was an array}). Nothing of the request was applied.
 */
public final class TaskServiceException extends RuntimeException {
  private final int status;

  /**
   * @param status  400 bad input, 401 no or wrong token, 404 unknown pool or task, 409 conflict, 413 too large,
   *                503 store unreachable
   * @param message what was wrong, naming the field
   */
  public TaskServiceException(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  static TaskServiceException badRequest(String message) {
    return new TaskServiceException(400, message);
  }

  static TaskServiceException notFound(String message) {
    return new TaskServiceException(404, message);
  }
}
