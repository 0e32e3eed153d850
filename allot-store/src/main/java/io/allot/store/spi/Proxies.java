package io.allot.store.spi;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * For store implementations and decorators (a borrowed DataSource's connections, the testkit's faulty store, a test's
 * gated queue): the call-through step of a {@link java.lang.reflect.Proxy} handler. Stateless.
 */
public final class Proxies {
  private Proxies() {}

  /**
   * {@code method} called on {@code target}: what it returns, or what it throws as it threw it (not wrapped in an
   * {@link InvocationTargetException}, so a proxy's callers see the target's own exceptions).
   */
  public static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
