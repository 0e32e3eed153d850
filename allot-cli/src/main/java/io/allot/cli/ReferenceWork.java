package io.allot.cli;

import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Option;

/**
 * What a job of the reference worker and of the reference endpoint does (a picocli mixin of {@code allot job worker}
 * and {@code allot job endpoint}): sleeps {@code --work-ms}, fails with probability {@code --fail-rate}, or as its
 * data says: {@code fail-once} fails the first attempt, {@code fail-always} every attempt.
 */
final class ReferenceWork {
  // set by picocli while parsing, read after: one thread
  @Option(names = {"-work-ms", "--work-ms"}, paramLabel = "MILLIS", defaultValue = "0",
      description = "Milliseconds each job takes. Default ${DEFAULT-VALUE}.")
  int workMs;

  @Option(names = {"-fail-rate", "--fail-rate"}, paramLabel = "FRACTION", defaultValue = "0",
      description = "Probability an attempt fails. Default ${DEFAULT-VALUE}.")
  double failRate;

  /** Checks the values; bad ones are bad input. */
  void check() {
    if (workMs < 0) {
      throw new BadInputException("--work-ms must be >= 0 but was " + workMs);
    }
    if (!(failRate >= 0 && failRate <= 1)) {
      throw new BadInputException("--fail-rate must be in [0, 1] but was " + failRate);
    }
  }

  /** Runs one attempt of the job with {@code data}: sleeps, and fails as asked. */
  void run(String data, int attempt) throws Exception {
    if (workMs > 0) {
      Thread.sleep(workMs);
    }
    if (data.equals("fail-always") || (data.equals("fail-once") && attempt == 1)
        || (failRate > 0 && ThreadLocalRandom.current().nextDouble() < failRate)) {
      throw new IllegalStateException("failed as asked (" + data + ", attempt " + attempt + ")");
    }
  }
}
