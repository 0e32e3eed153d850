package io.allot.cli.dev;

import io.allot.route.OwnerCheckInterceptor;
import io.allot.route.TableView;
import io.allot.store.Store;
import io.allot.worker.Divider;
import io.allot.worker.UnitRunner;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A member built with the worker SDK, as an application would: a {@link Divider} whose pings are on the member's own
 * gRPC server (so its id is the address routing clients call), a {@link UnitRunner} running a handler per owned unit,
 * and the demo's {@code Who} service behind an {@link OwnerCheckInterceptor} (a call about a unit it does not own is
 * refused, naming the owner). Stopping it closes the runner (the units are handed over) and the server; starting it
 * again builds both anew on the same port when it is free. Thread-safe.
 */
final class SdkWorker implements DevMember {
  private final Store store;
  private final DevNames names;
  private final String version;
  private final TableView table;
  private int port; // guarded by this: 0 until the first start, then the port kept across restarts
  private UnitRunner runner; // guarded by this: null while stopped
  private Server server; // guarded by this: null while stopped

  /**
   * @param version the member's version attribute (the canary weights split calls by it)
   * @param table   the live table its owner check names owners from
   */
  SdkWorker(Store store, DevNames names, String version, TableView table) {
    this.store = store;
    this.names = names;
    this.version = version;
    this.table = table;
  }

  @Override
  public synchronized void start() {
    if (runner != null) {
      return;
    }
    try {
      open(port);
    } catch (UncheckedIOException e) {
      open(0); // the old port was taken meanwhile: a new member id
    }
  }

  private void open(int p) {
    Divider d = Divider.builder(store).pool(names.workerPool()).distribution(names.table()).host("127.0.0.1")
        .pingsOnAppServer(p).version(version).zone(version.equals("v2") ? "zone-b" : "zone-a")
        .attribute("role", "dev-worker").shutdownGrace(Duration.ofSeconds(2)).build();
    UnitRunner r = UnitRunner.builder(d, ctx -> {
      while (!ctx.stopRequested()) {
        ctx.awaitStop(Duration.ofSeconds(1)); // the unit's work would run here, fenced by ctx.token()
      }
    }).build();
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", p));
    d.pingServices().forEach(b::addService);
    String[] self = new String[1];
    b.addService(ServerInterceptors.intercept(WhoService.serving(() -> self[0] + " " + version),
        OwnerCheckInterceptor.forUnits(() -> d.assigned().keySet(), table::ownerOf)));
    Server s;
    try {
      s = b.build().start();
    } catch (IOException e) {
      r.close();
      throw new UncheckedIOException("dev worker: cannot listen on 127.0.0.1:" + p, e);
    }
    self[0] = "127.0.0.1:" + s.getPort();
    d.start(s);
    port = s.getPort();
    runner = r;
    server = s;
  }

  @Override
  public synchronized void stop() {
    if (runner == null) {
      return;
    }
    runner.close();
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    runner = null;
    server = null;
  }

  @Override
  public synchronized boolean running() {
    return runner != null;
  }

  @Override
  public synchronized int held() {
    return runner == null ? 0 : runner.divider().assigned().size();
  }

  @Override
  public synchronized String describe() {
    return "worker 127.0.0.1:" + port + " (" + version + ") of " + names.workerPool();
  }
}
