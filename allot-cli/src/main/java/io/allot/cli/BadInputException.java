package io.allot.cli;

/** Bad input from the user: printed as one line, exit code 2. */
final class BadInputException extends RuntimeException {
  BadInputException(String message) {
    super(message, null, false, false);
  }
}
