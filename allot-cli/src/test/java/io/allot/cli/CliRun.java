package io.allot.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** One in-process run of {@code allot}: its exit code and what it printed. */
record CliRun(int code, String out, String err) {

  /** Runs {@code allot args...} with an empty environment. */
  static CliRun of(String... args) {
    return of(Map.of(), args);
  }

  /** Runs {@code allot args...} with the environment {@code env}. */
  static CliRun of(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out), new PrintWriter(err), env::get, args);
    return new CliRun(code, out.toString(), err.toString());
  }
}
