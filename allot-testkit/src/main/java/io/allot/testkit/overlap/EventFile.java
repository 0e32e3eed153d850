package io.allot.testkit.overlap;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Reads the event file a worker writes ({@code allot worker --events FILE}), one line an event:
 *
 * <pre>
 * &lt;epoch-millis&gt; start &lt;unit&gt; &lt;token&gt;
 * &lt;epoch-millis&gt; stop &lt;unit&gt;          (the unit has stopped, before it is released)
 * &lt;epoch-millis&gt; lease-lost             (the time is when the lease stopped being reliable; it ends every unit)
 * </pre>
 *
 * Other words after the time are other events and are skipped. A last line without its newline is being written
 * (or was cut by SIGKILL) and is left out; a complete line that does not parse is a problem. A file that does not
 * exist (yet) has no events.
 */
public final class EventFile {

  /** What a line says. */
  public enum LineKind {
    START, STOP, LEASE_LOST
  }

  /**
   * One line.
   *
   * @param millis when (epoch millis)
   * @param kind   what
   * @param unit   the unit ({@code null} for {@link LineKind#LEASE_LOST})
   * @param token  the fencing token ({@link LineKind#START} only; else -1)
   */
  public record Line(long millis, LineKind kind, String unit, long token) {
    public Line {
      Objects.requireNonNull(kind, "kind");
      if (kind != LineKind.LEASE_LOST) {
        Objects.requireNonNull(unit, "unit");
      }
    }
  }

  /** The events of a file in order, and its lines that do not parse. */
  public record Contents(List<Line> events, List<String> problems) {
    public Contents {
      events = List.copyOf(events);
      problems = List.copyOf(problems);
    }
  }

  private static final int BLOCK = 64 * 1024;

  private EventFile() {}

  /** Every event of {@code file}, in file order. */
  public static Contents read(Path file) {
    List<Line> events = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (String line : completeLines(file)) {
      Line e = parse(line, file, problems);
      if (e != null) {
        events.add(e);
      }
    }
    return new Contents(events, problems);
  }

  /** The units running at the end of {@code file}: unit to start time (epoch millis), in start order. */
  public static Map<String, Long> open(Path file) {
    Map<String, Long> open = new LinkedHashMap<>();
    for (Line e : read(file).events()) {
      switch (e.kind()) {
        case START -> open.put(e.unit(), e.millis());
        case STOP -> open.remove(e.unit());
        case LEASE_LOST -> open.clear();
      }
    }
    return open;
  }

  /** The times (epoch millis) of the {@code lease-lost} lines of {@code file}, in file order. */
  public static List<Long> leaseLostTimes(Path file) {
    return read(file).events().stream().filter(e -> e.kind() == LineKind.LEASE_LOST).map(Line::millis).toList();
  }

  /**
   * The starts at or after {@code since} (epoch millis): unit to the time of its first such start. Reads the file
   * backwards only as far as needed (lines are in time order, but for {@code lease-lost} lines, whose time may be
   * earlier than the lines before them), so polling a long file stays cheap.
   */
  public static Map<String, Long> startsSince(Path file, long since) {
    Map<String, Long> out = new HashMap<>();
    List<String> ignored = new ArrayList<>();
    backwards(file, line -> {
      Line e = parse(line, file, ignored);
      if (e == null || e.kind() == LineKind.LEASE_LOST) {
        return true;
      }
      if (e.millis() < since) {
        return false;
      }
      if (e.kind() == LineKind.START) {
        out.put(e.unit(), e.millis()); // going backwards: the earliest start wins
      }
      return true;
    });
    return out;
  }

  /** The line as an event; null (and a problem noted, unless it is another kind of event) if it is not one. */
  static Line parse(String line, Path file, List<String> problems) {
    String trimmed = line.trim();
    if (trimmed.isEmpty()) {
      return null;
    }
    String[] f = trimmed.split(" +");
    long millis;
    try {
      millis = Long.parseLong(f[0]);
    } catch (NumberFormatException e) {
      problems.add(file.getFileName() + ": bad line '" + line + "'");
      return null;
    }
    String kind = f.length > 1 ? f[1] : "";
    try {
      switch (kind) {
        case "start" -> {
          if (f.length == 4) {
            return new Line(millis, LineKind.START, f[2], Long.parseLong(f[3]));
          }
        }
        case "stop" -> {
          if (f.length == 3) {
            return new Line(millis, LineKind.STOP, f[2], -1);
          }
        }
        case "lease-lost" -> {
          if (f.length == 2) {
            return new Line(millis, LineKind.LEASE_LOST, null, -1);
          }
        }
        case "" -> { }
        default -> {
          return null; // another kind of event
        }
      }
    } catch (NumberFormatException e) {
      // bad token: below
    }
    problems.add(file.getFileName() + ": bad line '" + line + "'");
    return null;
  }

  private static List<String> completeLines(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    int end = lastNewline(bytes, bytes.length) + 1;
    return Arrays.asList(new String(bytes, 0, end, StandardCharsets.UTF_8).split("\n"));
  }

  /**
   * Hands the complete lines of {@code file} to {@code more} from the last to the first, while it returns true.
   * Reads blocks from the end; the start of a line cut by a block boundary is carried into the next (earlier) block.
   */
  private static void backwards(Path file, Predicate<String> more) {
    if (!Files.exists(file)) {
      return;
    }
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      byte[] carry = new byte[0]; // a line's end whose start is in an earlier block; ends with '\n'
      long pos = endOfLastLine(f);
      while (pos > 0) {
        int n = (int) Math.min(BLOCK, pos);
        pos -= n;
        byte[] data = new byte[n + carry.length];
        f.seek(pos);
        f.readFully(data, 0, n);
        System.arraycopy(carry, 0, data, n, carry.length);
        int lineEnd = data.length - 1; // data ends with the '\n' of its last line
        while (true) {
          int nl = lastNewline(data, lineEnd); // the '\n' before the current line
          if (nl < 0 && pos > 0) {
            carry = Arrays.copyOfRange(data, 0, lineEnd + 1);
            break;
          }
          if (!more.test(new String(data, nl + 1, lineEnd - nl - 1, StandardCharsets.UTF_8))) {
            return;
          }
          if (nl < 0) {
            break; // the file's first line
          }
          lineEnd = nl;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The position just after the file's last '\n' (0 if it has none): what follows is an unfinished line. */
  private static long endOfLastLine(RandomAccessFile f) throws IOException {
    long pos = f.length();
    byte[] block = new byte[BLOCK];
    while (pos > 0) {
      int n = (int) Math.min(BLOCK, pos);
      pos -= n;
      f.seek(pos);
      f.readFully(block, 0, n);
      int nl = lastNewline(block, n);
      if (nl >= 0) {
        return pos + nl + 1;
      }
    }
    return 0;
  }

  /** Index of the last '\n' in {@code b[0, end)}, or -1. */
  private static int lastNewline(byte[] b, int end) {
    for (int i = end - 1; i >= 0; i--) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
