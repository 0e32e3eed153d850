package io.allot.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories of throwaway servers. */
final class Dirs {
  private Dirs() {}

  static Path temp(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }

  /** Deletes {@code dir} and everything in it; best effort (a leftover temp file is no failure). */
  static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a file vanished meanwhile or cannot be read: leave the rest to the OS's temp cleanup
    }
  }

  /** The last {@code max} characters of a text file, or why it cannot be read. */
  static String tail(Path file, int max) {
    try {
      String s = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8);
      return s.length() > max ? "..." + s.substring(s.length() - max) : s;
    } catch (IOException | UncheckedIOException e) {
      return "(no " + file.getFileName() + ": " + e.getMessage() + ")";
    }
  }
}
