package io.allot.store.postgres;

import io.allot.store.Topic;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How allot channels travel over PostgreSQL {@code NOTIFY} in one schema. Immutable.
 *
 * <p>PostgreSQL channel names are identifiers (at most 63 bytes), allot channels arbitrary strings
 * ({@link Topic#channel()}, e.g. {@code allot:notify:<table key>}). A channel maps to {@code allot_<32 hex>} = the
 * first 128 bits of SHA-256({@code schema + "\n" + channel}): any length or alphabet works, a listener only
 * receives what it subscribed to, and stores in different schemas of one database never hear each other (NOTIFY is
 * database-wide). The payload is {@code <length of channel>:<channel><message>}: the allot channel travels along and
 * is checked on receipt. It must stay under PostgreSQL's 8000 bytes.
 */
final class PgChannels {
  /** pg_notify refuses payloads of 8000 bytes or more. */
  static final int MAX_PAYLOAD_BYTES = 7999;

  /** What a notifying statement passes to {@code pg_notify}. */
  record Note(String pgChannel, String payload) {}

  /** A payload taken apart. */
  record Decoded(String channel, String message) {}

  private final String schema;

  PgChannels(String schema) {
    this.schema = schema;
  }

  /** The PostgreSQL channel carrying {@code channel} in this schema. */
  String pgChannel(String channel) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256")
          .digest((schema + "\n" + channel).getBytes(StandardCharsets.UTF_8));
      return "allot_" + HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The notification of {@code message} on {@code topic}.
   *
   * @throws IllegalArgumentException if channel and message are too long for NOTIFY
   */
  Note note(Topic topic, String message) {
    String channel = topic.channel();
    String payload = payloadPrefix(channel) + message;
    checkPayload(channel, payload);
    return new Note(pgChannel(channel), payload);
  }

  /**
   * The notification on {@code topic} whose message the database appends (a publication's epoch): the payload
   * without its message, checked to leave room for any positive {@code long}.
   */
  Note noteForLong(Topic topic) {
    String channel = topic.channel();
    String prefix = payloadPrefix(channel);
    checkPayload(channel, prefix + Long.MAX_VALUE);
    return new Note(pgChannel(channel), prefix);
  }

  static String payloadPrefix(String channel) {
    return channel.length() + ":" + channel;
  }

  /** The channel and message of {@code payload}, or null if it is not {@code <length>:<channel><message>}. */
  static Decoded decodePayload(String payload) {
    int colon = payload.indexOf(':');
    if (colon <= 0 || colon > 10) {
      return null;
    }
    try {
      int n = Integer.parseInt(payload.substring(0, colon));
      if (n < 0 || colon + 1 + n > payload.length()) {
        return null;
      }
      return new Decoded(payload.substring(colon + 1, colon + 1 + n), payload.substring(colon + 1 + n));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static void checkPayload(String channel, String payload) {
    if (payload.getBytes(StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES) {
      throw new IllegalArgumentException("notification on channel '" + abbreviate(channel)
          + "' too long for PostgreSQL NOTIFY: channel + message must stay under about 8000 bytes");
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
