package io.allot.bench;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * What one {@link BenchMain#execute} run printed and returned: the exit code, standard output and standard error.
 *
 * @param code the exit code
 * @param out  what was printed to standard output
 * @param err  what was printed to standard error
 */
record BenchRun(int code, String out, String err) {

  /** Runs {@code bench} with {@code args} in this process. */
  static BenchRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BenchMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new BenchRun(code, out.toString(), err.toString());
  }
}
