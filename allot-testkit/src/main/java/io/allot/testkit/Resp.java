package io.allot.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;

/**
 * A minimal Redis (RESP2) client over a raw socket, for the testkit's own checks (PING, CLUSTER INFO, SHUTDOWN) so
 * that it needs neither a client library nor redis-cli. Replies: simple and bulk strings as text, integers as their
 * decimal text, arrays as their elements joined by newlines, nil as null; an error reply throws {@link Error}.
 */
final class Resp implements Closeable {
  /** An error reply ({@code -ERR ...}). */
  static final class Error extends IOException {
    Error(String message) {
      super(message);
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private Resp(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /**
   * Connects to {@code host:port}, over TLS when {@code tls} is not null, and authenticates when {@code password}
   * is not null; every read waits at most {@code timeout}.
   */
  static Resp connect(String host, int port, SSLSocketFactory tls, String password, Duration timeout)
      throws IOException {
    Socket plain = new Socket();
    try {
      plain.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
      plain.setSoTimeout((int) timeout.toMillis());
      Socket s = tls == null ? plain : tls.createSocket(plain, host, port, true);
      Resp r = new Resp(s);
      if (password != null) {
        r.call("AUTH", password);
      }
      return r;
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  /** Sends one command and reads its reply. */
  String call(String... args) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (String a : args) {
      byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
      b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(bytes);
      b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    out.write(b.toByteArray());
    out.flush();
    return reply();
  }

  private String reply() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed by the server");
    }
    String line = line();
    switch (type) {
      case '+', ':' -> {
        return line;
      }
      case '-' -> throw new Error(line);
      case '$' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        byte[] data = in.readNBytes(n + 2);
        if (data.length < n + 2) {
          throw new EOFException("connection closed in a bulk reply");
        }
        return new String(data, 0, n, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        List<String> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(reply());
        }
        return String.join("\n", items);
      }
      default -> throw new IOException("not a RESP reply: '" + (char) type + line + "'");
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new EOFException("connection closed in a reply line");
      }
      b.write(c);
    }
    if (in.read() != '\n') {
      throw new IOException("a reply line without LF");
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
