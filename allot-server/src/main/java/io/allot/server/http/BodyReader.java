package io.allot.server.http;

import java.io.ByteArrayOutputStream;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * Reads a request body without holding a thread while the client is slow: each chunk as it arrives (Jetty's
 * {@code demand}), then the whole body to a consumer on a pool thread. A body over {@code max} bytes is read on and
 * dropped up to {@code drain} more bytes (so a client still sending sees the answer, not a reset) and given as
 * {@link Body#tooLarge()}. The connection's idle timeout ends a body that stops arriving (the failure is passed on).
 */
final class BodyReader implements Runnable {
  /** A body read: its bytes, or none when it was over the bound. */
  record Body(byte[] bytes, boolean tooLarge) {}

  private final Request request;
  private final int max;
  private final long drain;
  private final Consumer<Body> done;
  private final Consumer<Throwable> failed;
  // guarded by Jetty's demand: run() runs once per demand, never two at a time
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private long dropped;

  private BodyReader(Request request, int max, long drain, Consumer<Body> done, Consumer<Throwable> failed) {
    this.request = request;
    this.max = max;
    this.drain = drain;
    this.done = done;
    this.failed = failed;
  }

  /** Reads the body of {@code request} and hands it to {@code done} (or the failure to {@code failed}). */
  static void read(Request request, int max, long drain, Consumer<Body> done, Consumer<Throwable> failed) {
    new BodyReader(request, max, drain, done, failed).run();
  }

  @Override
  public void run() {
    while (true) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        request.demand(this); // called again (on a pool thread) when more arrives
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        failed.accept(chunk.getFailure());
        return;
      }
      int n = chunk.remaining();
      if (out.size() + (long) n <= max && dropped == 0) {
        byte[] b = new byte[n];
        chunk.get(b, 0, n);
        out.write(b, 0, n);
      } else {
        dropped += n;
      }
      boolean last = chunk.isLast();
      chunk.release();
      if (last || dropped > drain) {
        done.accept(dropped > 0 ? new Body(null, true) : new Body(out.toByteArray(), false));
        return;
      }
    }
  }
}
