package io.allot.testkit.fleet;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Stands in for the {@code allot} CLI in {@link FleetTest}: prints its arguments; {@code server ...} idles;
 * {@code worker ... --port P
 * --events FILE} writes {@code start unit-P} at once, {@code stop unit-P} on the command {@code stop} and on
 * SIGTERM, as the real worker writes its event file.
 */
public final class FakeAllot {
  private FakeAllot() {}

  public static void main(String[] args) throws Exception {
    List<String> a = List.of(args);
    System.out.println("args: " + String.join(" ", a));
    System.out.flush();
    if (a.get(0).equals("server")) {
      Thread.sleep(Long.MAX_VALUE);
    }
    String unit = "unit-" + a.get(a.indexOf("--port") + 1);
    OutputStream events = new FileOutputStream(a.get(a.indexOf("--events") + 1), true);
    boolean[] running = {true};
    line(events, "start " + unit + " " + System.nanoTime());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      synchronized (running) {
        if (running[0]) {
          line(events, "stop " + unit);
        }
      }
    }));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String cmd; (cmd = in.readLine()) != null; ) {
      if (cmd.equals("stop")) {
        synchronized (running) {
          running[0] = false;
          line(events, "stop " + unit);
        }
      }
    }
    Thread.sleep(Long.MAX_VALUE);
  }

  private static void line(OutputStream out, String text) {
    try {
      out.write((System.currentTimeMillis() + " " + text + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
