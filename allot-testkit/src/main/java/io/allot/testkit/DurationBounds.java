package io.allot.testkit;

import io.allot.store.spi.Proxies;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Issue 18's rule, checked the same way in every module: each Duration setting of a builder refuses a value past its
 * bound, or negative, with an {@link IllegalArgumentException} whose message starts with the setting's name.
 *
 * <p>{@link #of} finds every public one-Duration setter of the builder type by reflection, so a setting added later is
 * checked without anybody remembering to list it; {@link #setting} adds what reflection cannot see (a setter taking two
 * durations, a constructor). Not thread-safe: one test builds and checks one instance.
 */
public final class DurationBounds {
  /** Past {@link Duration#toNanos()}'s ~292 years. */
  public static final Duration FAR = Duration.ofDays(300_000);
  /** What every setting must refuse: past the long-nanosecond range, the largest Duration, a negative one. */
  public static final List<Duration> OUT_OF_BOUNDS = List.of(FAR, Duration.ofSeconds(Long.MAX_VALUE),
      Duration.ofMillis(-1));

  /** Setting name to what uses a duration for it (builds with it); insertion order. Guarded by: test thread. */
  private final Map<String, Consumer<Duration>> settings = new LinkedHashMap<>();

  private DurationBounds() {}

  /** No settings yet: add them with {@link #setting} or {@link #builder}. */
  public static DurationBounds none() {
    return new DurationBounds();
  }

  /** Every public one-Duration setter of {@code type}, each applied to a fresh {@code valid()} then {@code build}. */
  public static <B> DurationBounds of(Class<B> type, Supplier<B> valid, Function<B, ?> build) {
    return none().builder(type, valid, build);
  }

  /** Adds every public one-Duration setter of {@code type} (named as the method), as {@link #of} does. */
  public <B> DurationBounds builder(Class<B> type, Supplier<B> valid, Function<B, ?> build) {
    List<Method> setters = new ArrayList<>();
    for (Method m : type.getMethods()) {
      if (!Modifier.isStatic(m.getModifiers()) && !m.isBridge() && m.getParameterCount() == 1
          && m.getParameterTypes()[0] == Duration.class) {
        setters.add(m);
      }
    }
    if (setters.isEmpty()) {
      throw new IllegalArgumentException("type " + type.getName() + " has no public one-Duration setter");
    }
    setters.sort(Comparator.comparing(Method::getName));
    for (Method m : setters) {
      m.setAccessible(true); // a public method inherited from a package-private base
      setting(m.getName(), d -> build.apply(type.cast(invoke(m, valid.get(), d))));
    }
    return this;
  }

  /** Adds the setting {@code name} of a builder: {@code set} applied to a fresh {@code valid()}, then {@code build}. */
  public <B> DurationBounds setting(String name, Supplier<B> valid, BiFunction<B, Duration, B> set,
      Function<B, ?> build) {
    return setting(name, d -> build.apply(set.apply(valid.get(), d)));
  }

  /** Adds the setting {@code name}: {@code use} builds something with the given duration for it. */
  public DurationBounds setting(String name, Consumer<Duration> use) {
    if (settings.putIfAbsent(Objects.requireNonNull(name, "name"), Objects.requireNonNull(use, "use")) != null) {
      throw new IllegalArgumentException("setting " + name + " is already added");
    }
    return this;
  }

  /** The names checked, in order. */
  public List<String> names() {
    return List.copyOf(settings.keySet());
  }

  /**
   * Fails, listing every miss, unless each setting refuses each of {@link #OUT_OF_BOUNDS} with an
   * IllegalArgumentException whose message starts with the setting's name.
   */
  public void assertEverySettingBounded() {
    if (settings.isEmpty()) {
      throw new AssertionError("no settings to check");
    }
    List<String> misses = new ArrayList<>();
    settings.forEach((name, use) -> {
      for (Duration bad : OUT_OF_BOUNDS) {
        String miss = miss(name, use, bad);
        if (miss != null) {
          misses.add(name + " = " + bad + ": " + miss);
        }
      }
    });
    if (!misses.isEmpty()) {
      throw new AssertionError(misses.size() + " out-of-bounds durations not refused as they should be:\n  "
          + String.join("\n  ", misses));
    }
  }

  private static String miss(String name, Consumer<Duration> use, Duration bad) {
    try {
      use.accept(bad);
      return "accepted";
    } catch (IllegalArgumentException e) {
      String msg = String.valueOf(e.getMessage());
      return msg.startsWith(name) ? null : "refused, but the message does not start with the name: " + msg;
    } catch (RuntimeException e) {
      return "threw " + e;
    }
  }

  private static Object invoke(Method m, Object target, Duration d) {
    try {
      return Proxies.invoke(target, m, new Object[] {d});
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(m.getName() + " threw", e);
    }
  }
}
