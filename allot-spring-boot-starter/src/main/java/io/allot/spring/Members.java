package io.allot.spring;

import io.allot.store.Store;
import io.allot.worker.Divider;
import java.util.function.Consumer;

/** Builds a member's {@link Divider.Builder} from {@code allot.worker.*}: only the settings given, the SDK's defaults else. */
final class Members {
  private Members() {}

  /** A builder of a member of {@code pool} on {@code port} with {@code capacity} (null = the setting's). */
  static Divider.Builder builder(Store store, AllotProperties.WorkerSettings w, String pool, int port, Integer capacity) {
    Divider.Builder b = Divider.builder(store).pool(pool).port(port);
    set(w.host(), b::host);
    set(w.distributionNamespace(), b::distribution);
    set(w.affinity(), b::affinity);
    set(capacity != null ? capacity : w.capacity(), b::capacity);
    set(w.version(), b::version);
    set(w.zone(), b::zone);
    w.labels().forEach(b::attribute);
    set(w.leaseTtl(), b::leaseTtl);
    set(w.renewEvery(), b::renewEvery);
    set(w.fenceMargin(), b::fenceMargin);
    set(w.syncInterval(), b::syncInterval);
    set(w.maxConcurrentMoves(), b::maxConcurrentMoves);
    set(w.claimBatch(), b::claimBatch);
    set(w.shutdownGrace(), b::shutdownGrace);
    return b;
  }

  /** Calls {@code setter} with {@code value} unless it is null (a setting left out keeps the SDK's default). */
  static <T> void set(T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }
}
