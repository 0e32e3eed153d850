package io.allot.server.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file of named tokens, one per line: {@code name role token} ({@code role} is {@code read} or {@code write});
 * blank lines and lines starting with {@code #} are ignored. {@link #get()} looks at the file again at most every
 * {@code checkEvery} (default 1 s) and reloads it when its content changed, so tokens can be added and revoked without
 * a restart. A bad file at start is an error naming the file and line; a bad file on reload is logged with the same
 * message and the tokens loaded before are kept (so is a file that cannot be read).
 *
 * <p>State: {@code current} is volatile; the reload fields are guarded by {@code this}.
 */
public final class TokenFile implements Supplier<Tokens> {
  private static final Logger log = LoggerFactory.getLogger(TokenFile.class);

  /** How often {@link #get()} looks at the file by default. */
  public static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  private final Path path;
  private final long checkEveryNanos;
  private final LongSupplier nanoTime;
  private volatile Tokens current;
  /** The bytes last read (guarded by this). */
  private byte[] lastBytes;
  /** When the file was last looked at (guarded by this). */
  private long lastCheck;
  /** The last reload's error, or null (guarded by this). */
  private String lastError;

  private TokenFile(Path path, Duration checkEvery, LongSupplier nanoTime) {
    this.path = Objects.requireNonNull(path, "path");
    this.checkEveryNanos = checkEvery.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * Loads {@code path}, looked at again at most every {@link #CHECK_EVERY}.
   *
   * @throws IllegalArgumentException naming the file (and line) if it cannot be read or a line is bad
   */
  public static TokenFile load(Path path) {
    return load(path, CHECK_EVERY);
  }

  /** Loads {@code path}, looked at again at most every {@code checkEvery} (zero: at every {@link #get()}). */
  public static TokenFile load(Path path, Duration checkEvery) {
    if (checkEvery.isNegative()) {
      throw new IllegalArgumentException("checkEvery must not be negative but was " + checkEvery);
    }
    TokenFile f = new TokenFile(path, checkEvery, System::nanoTime);
    byte[] bytes = f.read();
    f.current = parse(path, bytes);
    f.lastBytes = bytes;
    f.lastCheck = f.nanoTime.getAsLong();
    return f;
  }

  /** The file. */
  public Path path() {
    return path;
  }

  /** The tokens in force: reloaded first if the file changed since it was last looked at. */
  @Override
  public Tokens get() {
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (now - lastCheck >= checkEveryNanos) {
        lastCheck = now;
        reload();
      }
    }
    return current;
  }

  /** The error of the last look at the file (the old tokens were kept), or null if it was fine. */
  public synchronized String lastError() {
    return lastError;
  }

  /** Guarded by this. */
  private void reload() {
    byte[] bytes;
    try {
      bytes = read();
    } catch (IllegalArgumentException e) {
      refuse(e.getMessage());
      return;
    }
    if (Arrays.equals(bytes, lastBytes)) {
      return;
    }
    try {
      Tokens t = parse(path, bytes);
      current = t;
      lastBytes = bytes;
      lastError = null;
      log.info("token file {} reloaded: {}", path, t);
    } catch (IllegalArgumentException e) {
      refuse(e.getMessage());
    }
  }

  /** Guarded by this. */
  private void refuse(String message) {
    if (!message.equals(lastError)) {
      log.error("{}; the tokens loaded before stay in force", message);
    }
    lastError = message;
  }

  private byte[] read() {
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new IllegalArgumentException("token file " + path + ": cannot read it: " + e, e);
    }
  }

  /**
   * The tokens of a file's content.
   *
   * @throws IllegalArgumentException naming {@code path} and the line of the first bad line
   */
  static Tokens parse(Path path, byte[] content) {
    Tokens.Builder b = Tokens.builder();
    List<String> lines = new String(content, StandardCharsets.UTF_8).lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = "token file " + path + " line " + (i + 1) + ": ";
      String[] f = line.split("\\s+");
      if (f.length != 3) {
        throw new IllegalArgumentException(where + "must be 'name role token' (3 fields) but has " + f.length);
      }
      try {
        b.add(f[0], Role.parse(f[1]), f[2]);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + e.getMessage());
      }
    }
    return b.build();
  }
}
