package io.allot.server.ping;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.dev.DemoMember;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class PingerTest {
  static final Duration TIMEOUT = Duration.ofMillis(500);
  /**
   * For the tests of which protocol is used, not of timing: the first ping of a JVM also loads and starts gRPC's
   * transport within its deadline, which on a loaded machine can take longer than {@link #TIMEOUT}.
   */
  static final Duration GENEROUS = Duration.ofSeconds(5);

  @Test
  void healthOnlyAndLegacyOnlyMembersBothAnswerInAutoMode() {
    try (DemoMember health = new DemoMember(0, true, false).start();
        DemoMember legacy = new DemoMember(0, false, true).start();
        Pinger p = new Pinger(Pinger.Mode.AUTO, GENEROUS)) {
      Pinger.Result h = p.ping(health.address()).join();
      assertThat(h.ok()).as(h.error()).isTrue();
      Pinger.Result r = p.ping(legacy.address()).join();
      assertThat(r.ok()).as(r.error()).isTrue();
      assertThat(r.legacy()).isTrue();
      assertThat(p.isLegacy(legacy.address())).isTrue();
    }
  }

  @Test
  void forcedProtocolsDoNotFallBack() {
    try (DemoMember legacy = new DemoMember(0, false, true).start();
        DemoMember health = new DemoMember(0, true, false).start();
        Pinger h = new Pinger(Pinger.Mode.HEALTH, GENEROUS);
        Pinger l = new Pinger(Pinger.Mode.LEGACY, GENEROUS)) {
      Pinger.Result r = h.ping(legacy.address()).join();
      assertThat(r.ok()).isFalse();
      assertThat(r.error()).contains("UNIMPLEMENTED");
      assertThat(l.ping(legacy.address()).join().ok()).isTrue();
      assertThat(l.ping(health.address()).join().ok()).isFalse();
    }
  }

  @Test
  void aStoppedMemberFailsWithinTheTimeoutAndIsSeenAgainWhenBack() {
    try (DemoMember m = new DemoMember(0, true, true).start();
        Pinger p = new Pinger(Pinger.Mode.AUTO, TIMEOUT)) {
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> p.ping(m.address()).join().ok()); // see GENEROUS
      m.stop();
      long t0 = System.nanoTime();
      Pinger.Result r = p.ping(m.address()).join();
      assertThat(r.ok()).isFalse();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(TIMEOUT.plusSeconds(2));
      m.start();
      // gRPC's reconnect backoff would otherwise delay this by up to minutes
      Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .until(() -> p.ping(m.address()).join().ok());
    }
  }

  @Test
  void aBadAddressIsAFailedPingNotAnException() {
    try (Pinger p = new Pinger(Pinger.Mode.AUTO, TIMEOUT)) {
      Pinger.Result r = p.ping("not-an-address").join();
      assertThat(r.ok()).isFalse();
      assertThat(r.error()).contains("not-an-address");
    }
  }
}
