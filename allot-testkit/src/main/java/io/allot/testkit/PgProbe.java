package io.allot.testkit;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Whether a PostgreSQL server lets a user into a database without a password (trust authentication), asked over a
 * raw socket with the protocol's startup message, so the testkit needs no JDBC driver.
 */
final class PgProbe {
  private PgProbe() {}

  /**
   * Connects to {@code host:port} as {@code user} to {@code database}.
   *
   * @return empty if the server answered AuthenticationOk; else why not (refused, timed out, the server's error,
   *         a password asked for)
   */
  static Optional<String> refusal(String host, int port, String user, String database, Duration timeout) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
      s.setSoTimeout((int) timeout.toMillis());
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      DataOutputStream b = new DataOutputStream(body);
      b.writeInt(196_608); // protocol 3.0
      for (String p : new String[] {"user", user, "database", database}) {
        b.write(p.getBytes(StandardCharsets.UTF_8));
        b.write(0);
      }
      b.write(0);
      out.writeInt(body.size() + 4);
      body.writeTo(out);
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      int type = in.readUnsignedByte();
      int length = in.readInt();
      byte[] payload = in.readNBytes(Math.max(0, Math.min(length - 4, 64 * 1024)));
      if (type == 'R' && payload.length >= 4) {
        int code = ((payload[0] & 0xff) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8)
            | (payload[3] & 0xff);
        if (code == 0) {
          out.write(new byte[] {'X', 0, 0, 0, 4}); // Terminate
          out.flush();
          return Optional.empty();
        }
        return Optional.of("it asks for a password (authentication request " + code + "), not trust");
      }
      if (type == 'E') {
        return Optional.of(errorMessage(payload));
      }
      return Optional.of("unexpected reply '" + (char) type + "' to the startup message");
    } catch (IOException e) {
      return Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  /** The {@code M} (message) field of an ErrorResponse. */
  private static String errorMessage(byte[] payload) {
    int i = 0;
    while (i < payload.length && payload[i] != 0) {
      byte field = payload[i++];
      int end = i;
      while (end < payload.length && payload[end] != 0) {
        end++;
      }
      if (field == 'M') {
        return new String(payload, i, end - i, StandardCharsets.UTF_8);
      }
      i = end + 1;
    }
    return "error response";
  }
}
