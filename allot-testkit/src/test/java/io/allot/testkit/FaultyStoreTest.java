package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.FaultyStore.Availability;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@SuppressWarnings("try") // subscriptions held open by try-with-resources
class FaultyStoreTest {
  final MemoryStore memory = new MemoryStore();
  final FaultyStore store = new FaultyStore(memory);

  @AfterEach
  void close() {
    store.close();
    memory.close();
  }

  @Test
  void upLetsCallsThroughToTheDelegate() {
    assertThat(store.availability()).isEqualTo(Availability.UP);
    long session = store.membership("p").register("m", MemberMeta.DEFAULT, Duration.ofSeconds(30));
    assertThat(store.ownership("p").claim("u", "m", session)).isPresent();
    assertThat(memory.ownership("p").owners()).containsKey("u");
    assertThat(store.describe()).isEqualTo("faulty(" + memory.describe() + ")");
    assertThat(store.delegate()).isSameAs(memory);
  }

  @Test
  void downFailsEveryCallAtOnceAndChangesNothing() {
    store.availability(Availability.DOWN);
    assertThatThrownBy(() -> store.seedKeys().addToList("k", "v"))
        .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("seedKeys.addToList");
    assertThat(memory.seedKeys().list("k")).isEmpty();
    store.availability(Availability.UP);
    assertThat(store.seedKeys().addToList("k", "v")).isTrue();
  }

  @Test
  void aHungCallBlocksUntilTheModeChangesThenFailsAsATimeout() throws Exception {
    store.availability(Availability.HANG);
    AtomicReference<Thread> caller = new AtomicReference<>();
    CompletableFuture<Long> call = CompletableFuture.supplyAsync(() -> {
      caller.set(Thread.currentThread());
      return store.clock().timeMillis();
    });
    await().atMost(Duration.ofSeconds(10))
        .until(() -> caller.get() != null && caller.get().getState() == Thread.State.WAITING);
    assertThat(call).isNotDone();
    store.availability(Availability.UP);
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(StoreUnavailableException.class).hasMessageContaining("timed out")
        .hasMessageContaining("clock.timeMillis");
    assertThat(store.clock().timeMillis()).isPositive();
  }

  @Test
  void closingReleasesHungCallersButNotTheDelegate() throws Exception {
    store.availability(Availability.HANG);
    CompletableFuture<List<String>> call = CompletableFuture.supplyAsync(() -> store.seedKeys().list("k"));
    await().atMost(Duration.ofSeconds(10)).until(() -> store.availability() == Availability.HANG && !call.isDone());
    store.close();
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(StoreUnavailableException.class);
    assertThat(memory.seedKeys().list("k")).isEmpty();
  }

  @Test
  void subscriptionsWorkInEveryModeAndPoolNamesNeedNoCall() throws Exception {
    store.availability(Availability.DOWN);
    List<String> got = new CopyOnWriteArrayList<>();
    try (Subscription s = store.notifications().subscribe(Topic.named("c"), got::add)) {
      assertThat(store.membership("p").pool()).isEqualTo("p");
      assertThat(store.ownership("p").pool()).isEqualTo("p");
      assertThatThrownBy(() -> store.notifications().publish(Topic.named("c"), "m"))
          .isInstanceOf(StoreUnavailableException.class);
      memory.notifications().publish(Topic.named("c"), "direct");
      await().atMost(Duration.ofSeconds(10)).until(() -> got.contains("direct"));
    }
  }

  @Test
  void anInterceptorThatThrowsFailsTheCall() {
    store.intercept(call -> {
      if (call.equals("ownership.claimAll")) {
        throw new StoreUnavailableException("injected");
      }
    });
    long session = store.membership("p").register("m", MemberMeta.DEFAULT, Duration.ofSeconds(30));
    assertThatThrownBy(() -> store.ownership("p").claimAll(List.of("u"), "m", session)).hasMessage("injected");
    assertThat(store.ownership("p").claim("u", "m", session)).isPresent();
  }

  /**
   * Every method of every role of {@link Store}, found by reflection, goes through the interceptor under its own
   * name and is failed in {@link Availability#DOWN}: a method added to a role and forwarded without the fault fails here.
   */
  @Test
  void theInterceptorSeesEveryCallOfEveryRoleByName() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    store.intercept(seen::add);
    store.availability(Availability.DOWN);
    Set<String> names = new HashSet<>();
    int calls = 0;
    for (Method roleGetter : roleGetters()) {
      Object role = roleGetter.getParameterCount() == 0 ? roleGetter.invoke(store) : roleGetter.invoke(store, "p");
      String prefix = roleGetter.getName();
      for (Method m : sorted(roleGetter.getReturnType().getMethods())) {
        if (Modifier.isStatic(m.getModifiers()) || m.getName().equals("pool") || m.getName().equals("subscribe")) {
          continue;
        }
        seen.clear();
        try {
          m.invoke(role, Arrays.stream(m.getParameterTypes()).map(FaultyStoreTest::dummy).toArray());
          fail(prefix + "." + m.getName() + " went through in mode DOWN");
        } catch (InvocationTargetException e) {
          assertThat(e.getCause()).as(m.toString()).isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(seen).as("interceptor calls for %s", m).singleElement().asString()
            .startsWith(prefix + "." + m.getName());
        assertThat(names.add(seen.get(0))).as("a name of its own for %s", m).isTrue();
        calls++;
      }
    }
    assertThat(names).contains("clock.timeMillis", "leadership.tryAcquire", "membership.register",
        "ownership.claimAll", "tables.publish", "tables.read", "tables.readMember", "tables.units",
        "tables.unitsOfMember", "notifications.publish", "routeWeights.set", "routeWeights.read",
        "seedKeys.replaceList");
    assertThat(calls).isGreaterThanOrEqualTo(26);
  }

  /**
   * The roles the test above walks are all of {@link Store}'s. A role's default method (e.g. {@code Tables.units}) is
   * faulted like any other: the proxy sees every method of the interface, so roles may have them.
   */
  @Test
  void everyRoleOfTheStoreIsWalked() throws Exception {
    assertThat(roleGetters()).extracting(Method::getName)
        .containsExactlyInAnyOrder("clock", "leadership", "membership", "ownership", "tables", "notifications",
            "seedKeys", "routeWeights");
  }

  /** The methods of {@link Store} that return a role. */
  private static List<Method> roleGetters() {
    List<Method> out = new ArrayList<>();
    for (Method m : sorted(Store.class.getMethods())) {
      Class<?> t = m.getReturnType();
      if (t.isInterface() && t.getPackageName().equals("io.allot.store") && !Modifier.isStatic(m.getModifiers())) {
        out.add(m);
      }
    }
    return out;
  }

  private static List<Method> sorted(Method[] methods) {
    return Arrays.stream(methods).sorted(Comparator.comparing(Method::toString)).toList();
  }

  private static Object dummy(Class<?> type) {
    if (type == String.class) {
      return "x";
    } else if (type == long.class) {
      return 1L;
    } else if (type == int.class) {
      return 1;
    } else if (type == Duration.class) {
      return Duration.ofSeconds(1);
    } else if (type == Lease.class) {
      return new Lease("x", "h", 1);
    } else if (type == MemberMeta.class) {
      return MemberMeta.DEFAULT;
    } else if (type == List.class || type == java.util.Collection.class) {
      return List.of("x");
    } else if (type == Map.class) {
      return Map.of("k", "v");
    } else if (type == Topic.class) {
      return Topic.named("x");
    } else if (type == Consumer.class) {
      return (Consumer<String>) m -> { };
    }
    throw new AssertionError("no dummy argument of type " + type + ": add one here");
  }
}
