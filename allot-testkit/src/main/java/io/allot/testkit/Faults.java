package io.allot.testkit;

import io.allot.store.StoreUnavailableException;
import io.allot.store.spi.Proxies;
import io.allot.testkit.FaultyStore.Availability;
import io.allot.testkit.FaultyStore.Interceptor;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The faults of one {@link FaultyStore}: its availability, its interceptor, and the forwarding of a role view
 * through them ({@link #wrap}). A role is forwarded by a dynamic proxy of its interface, so every method of it,
 * one the role gains later too, goes through {@link #before(String)}: there is no forwarding code to forget.
 *
 * <p>Thread-safe: {@code gate} guards the mode's transitions; the mode and the interceptor are volatile.
 */
final class Faults {
  /** Calls let through in every availability: a view's own name, and subscribing (pub/sub is only a hint). */
  private static final Set<String> UNFAULTED = Set.of("pool", "name", "notifications.subscribe");
  /** The names of overloaded calls (role.method/arity) that say which overload. */
  private static final Map<String, String> OVERLOADS = Map.of(
      "ownership.release/4", "ownership.releaseWithHold",
      "tables.read/2", "tables.readMember",
      "tables.units/2", "tables.unitsOfMember");

  private final Object gate = new Object();
  /** Guarded by {@code gate} for transitions; read without it on the fast path. */
  private volatile Availability mode = Availability.UP;
  private volatile Interceptor interceptor = call -> { };

  /** Switches the mode; blocked calls wake up. */
  void availability(Availability m) {
    synchronized (gate) {
      mode = Objects.requireNonNull(m, "mode");
      gate.notifyAll();
    }
  }

  Availability availability() {
    return mode;
  }

  void intercept(Interceptor i) {
    interceptor = Objects.requireNonNull(i, "interceptor");
  }

  /**
   * {@code delegate} seen through the faults: each call, named {@code role.method} (e.g. {@code "ownership.claimAll"};
   * an overload by {@link #OVERLOADS}), goes through {@link #before(String)} first, but for {@link #UNFAULTED}.
   */
  <T> T wrap(Class<T> role, String prefix, T delegate) {
    Objects.requireNonNull(delegate, prefix);
    return role.cast(Proxy.newProxyInstance(role.getClassLoader(), new Class<?>[] {role}, (proxy, method, args) -> {
      if (method.getDeclaringClass() == Object.class && method.getName().equals("equals")) {
        return proxy == args[0];
      }
      String call = prefix + "." + method.getName();
      if (method.getDeclaringClass() != Object.class && !UNFAULTED.contains(method.getName())
          && !UNFAULTED.contains(call)) {
        before(OVERLOADS.getOrDefault(call + "/" + method.getParameterCount(), call));
      }
      return Proxies.invoke(delegate, method, args);
    }));
  }

  /** Applies the mode and the interceptor to the call named {@code call}. */
  void before(String call) {
    interceptor.before(call);
    Availability m = mode;
    if (m == Availability.UP) {
      return;
    }
    if (m == Availability.DOWN) {
      throw new StoreUnavailableException("test: store switched off (" + call + ")");
    }
    synchronized (gate) {
      while (mode == Availability.HANG) {
        try {
          gate.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StoreUnavailableException("test: interrupted while hanging (" + call + ")");
        }
      }
    }
    throw new StoreUnavailableException("test: request timed out (" + call + "); it may or may not have been applied");
  }
}
