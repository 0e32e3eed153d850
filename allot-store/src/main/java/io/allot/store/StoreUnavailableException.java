package io.allot.store;

/**
 * The store could not be reached or did not answer in time (connection refused or lost, timeout, server loading or
 * busy, request queue full). The outcome of a write that failed this way is unknown: it may or may not have been
 * applied. Every write of the SPI is safe to retry (idempotent or fenced).
 */
public final class StoreUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreUnavailableException(String message) {
    super(message);
  }

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
