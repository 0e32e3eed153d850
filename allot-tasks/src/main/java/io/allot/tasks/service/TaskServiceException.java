package io.allot.tasks.service;

import java.util.Objects;

/**
 * A request the task API refuses, with the {@linkplain ErrorKind kind} of refusal; the message names the bad field
 * (e.g. {@code args: must be a JSON object but was an array}). Nothing of the request was applied. The kind is
 * transport-neutral: each front end maps it (the REST API to an HTTP status, the gRPC service to a status code, the
 * CLI to an exit code).
 */
public final class TaskServiceException extends RuntimeException {
  /**
   * What a client is told when the store is unreachable (REST 503, gRPC UNAVAILABLE): no connection details; the
   * server logs the cause.
   */
  public static final String UNAVAILABLE_TO_CLIENTS =
      "store: unavailable; try again later (the server's log has the cause)";

  /** Why a request was refused. */
  public enum ErrorKind {
    /** A field is missing, malformed or out of range. */
    BAD_INPUT,
    /** A write without a token, or with a wrong one. */
    UNAUTHENTICATED,
    /** No such pool or task. */
    NOT_FOUND,
    /** The request contradicts what exists (a task created again with other arguments). */
    CONFLICT,
    /** The arguments or the request body are over the limit. */
    TOO_LARGE,
    /** The store cannot be reached: the request may succeed later. */
    UNAVAILABLE
  }

  private final ErrorKind kind;
  private final String field;

  /**
   * @param kind    why the request was refused
   * @param message what was wrong, naming the field
   */
  public TaskServiceException(ErrorKind kind, String message) {
    this(kind, null, message);
  }

  private TaskServiceException(ErrorKind kind, String field, String message) {
    super(message, null, false, false);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.field = field;
  }

  /** Why the request was refused. */
  public ErrorKind kind() {
    return kind;
  }

  /**
   * The input the refusal is about when it is the pool ({@code "pool"}: an unknown pool, a bad pool name, a pool that
   * cannot take tasks), else null; a client whose pool is a setting (the CLI's {@code -pool}) treats it as bad input.
   */
  public String field() {
    return field;
  }

  /** A refusal of the pool itself; {@code message} follows {@code "pool: "}. */
  static TaskServiceException aboutPool(ErrorKind kind, String message) {
    return new TaskServiceException(kind, "pool", "pool: " + message);
  }

  static TaskServiceException badRequest(String message) {
    return new TaskServiceException(ErrorKind.BAD_INPUT, message);
  }

  static TaskServiceException notFound(String message) {
    return new TaskServiceException(ErrorKind.NOT_FOUND, message);
  }
}
