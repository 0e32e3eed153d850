package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** `allot worker` rejects bad configuration with exit code 2 and a message naming the input. */
class WorkerCommandTest {
  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Result(code, out.toString(), err.toString());
  }

  @Test
  void groupAndPortAreRequired() {
    Result r = run("worker", "--port", "7001");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--group");
    r = run("worker", "--group", "g");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--port");
  }

  @Test
  void badValuesAreNamed() {
    assertThat(run("worker", "--group", "g", "--port", "70000").err()).contains("-port: 70000 is not a port");
    assertThat(run("worker", "--group", "g", "--port", "1", "--affinity", "-1").err()).contains("-affinity");
    assertThat(run("worker", "--group", "g", "--port", "1", "--stop-delay", "soon").err()).contains("-stop-delay");
    Result r = run("worker", "--group", "g", "--port", "1", "-store", "memory");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("-store memory");
    r = run("worker", "--group", "g", "--port", "1", "-store", "nosql");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("unknown store 'nosql'");
  }

  @Test
  void inconsistentLeaseSettingsAreRejectedBeforeJoining() {
    Result r = run("worker", "--group", "g", "--port", "1", "--lease-ttl", "1s", "--fence-margin", "2s");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("fenceMargin");
  }
}
