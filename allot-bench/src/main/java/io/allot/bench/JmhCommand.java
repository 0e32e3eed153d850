package io.allot.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** {@code bench jmh}: the JMH suites of this jar; every argument goes to JMH ({@link org.openjdk.jmh.Main}) as is. */
@Command(
    name = "jmh",
    description = {
      "Runs the JMH suites: every argument goes to JMH as is.",
      "Suite: AssignJmh (full assign and leave per strategy; the whole grid takes hours: narrow it with -p).",
      "Examples: jmh -l (list), jmh -h (JMH's options), jmh AssignJmh -f 1 -wi 1 -i 1 -p n=1000 -p m=10 "
          + "-p strategy=balanced."
    })
final class JmhCommand implements Callable<Integer> {
  /** The arguments for JMH, in order. Set by picocli before {@link #call}. */
  @Unmatched List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    org.openjdk.jmh.Main.main(args.toArray(String[]::new)); // exits the JVM itself on a bad argument
    return 0;
  }
}
