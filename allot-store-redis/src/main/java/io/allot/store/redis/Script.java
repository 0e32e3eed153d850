package io.allot.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script as Redis runs it: {@code text} is exactly what is sent (with EVAL, or loaded for EVALSHA), and
 * {@code sha} its SHA-1, computed from that text. The Lua lives in resource files under
 * {@code io/allot/store/redis/lua/}, read once when the index class that names the script ({@link Scripts},
 * {@link JobScripts}, {@link SpecScripts}) is initialized: a script's text is the shared prelude
 * ({@value #SHARED_PRELUDE}: effects replication, the store clock in µs and ms, number formatting, the token rule,
 * type errors, chunked commands), then its role's prelude if it has one, then its own file. Each file starts with
 * a comment saying what the script does, its KEYS, ARGV and reply.
 *
 * @param name the script's file without {@code .lua}, e.g. {@code jobs/claim} (for messages)
 */
record Script(String name, String text, String sha) {
  /** The prelude sent first in every script. */
  static final String SHARED_PRELUDE = "prelude.lua";
  /** Where the files are, relative to this class's package. */
  static final String FOLDER = "lua/";

  /** The script of {@code file} (under {@link #FOLDER}): the shared prelude, then the file. */
  static Script load(String file) {
    return of(file, read(SHARED_PRELUDE) + read(file));
  }

  /**
   * The script of {@code file} (under {@link #FOLDER}): the shared prelude, then {@code rolePrelude} (the prelude of
   * the file's role), then the file.
   */
  static Script load(String file, String rolePrelude) {
    return of(file, read(SHARED_PRELUDE) + read(rolePrelude) + read(file));
  }

  private static Script of(String file, String text) {
    return new Script(file.substring(0, file.length() - ".lua".length()), text, sha1(text));
  }

  /**
   * The text of {@code file} under {@link #FOLDER}, as UTF-8.
   *
   * @throws IllegalStateException if it is missing
   */
  static String read(String file) {
    try (InputStream in = Script.class.getResourceAsStream(FOLDER + file)) {
      if (in == null) {
        throw new IllegalStateException("the Lua script " + FOLDER + file + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Lua script " + FOLDER + file, e);
    }
  }

  /** The SHA-1 of {@code text} as UTF-8, in lower-case hex (as Redis names a script). */
  static String sha1(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
