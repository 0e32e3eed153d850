package io.allot.cli;

/** Bad input from the user: printed as one line, exit code 2. */
public final class BadInputException extends RuntimeException {
  /**
   * The exception.
   *
   * @param message the line to print: names the bad input
   */
  public BadInputException(String message) {
    super(message, null, false, false);
  }
}
