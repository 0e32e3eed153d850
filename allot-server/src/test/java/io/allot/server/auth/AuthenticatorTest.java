package io.allot.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.auth.Authenticator.Channel;
import io.allot.server.auth.Authenticator.Decision;
import io.allot.server.auth.Authenticator.Reason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuthenticatorTest {
  static final InetAddress LOOP = InetAddress.getLoopbackAddress();
  static final InetAddress FAR = address(10, 0, 0, 7);

  static InetAddress address(int... b) {
    try {
      return InetAddress.getByAddress(new byte[] {(byte) b[0], (byte) b[1], (byte) b[2], (byte) b[3]});
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void withoutTokensWritesOnlyFromLoopbackUnlessOpenedReadsOpen() {
    Authenticator a = Authenticator.builder().build();
    assertThat(a.check(Channel.REST, Role.WRITE, null, LOOP).allowed()).isTrue();
    Decision far = a.check(Channel.REST, Role.WRITE, null, FAR);
    assertThat(far.allowed()).isFalse();
    assertThat(far.reason()).isEqualTo(Reason.LOOPBACK);
    assertThat(far.message()).isEqualTo(Authenticator.LOOPBACK_ONLY);
    assertThat(a.check(Channel.REST, Role.WRITE, null, null).allowed()).as("unknown address").isFalse();
    assertThat(a.check(Channel.REST, Role.READ, null, FAR).allowed()).isTrue();
    assertThat(Authenticator.builder().openWrites(true).build().check(Channel.GRPC, Role.WRITE, null, FAR).allowed())
        .isTrue();
  }

  @Test
  void aWriteNeedsAWriteTokenAndAReadTokenClosesReads() {
    Authenticator a = Authenticator.builder().token("ci", Role.WRITE, "w-secret").build();
    assertThat(a.check(Channel.REST, Role.READ, null, FAR).allowed()).as("no read token: reads open").isTrue();
    assertThat(a.check(Channel.REST, Role.WRITE, null, LOOP).reason()).as("loopback is no pass with tokens")
        .isEqualTo(Reason.MISSING);
    assertThat(a.check(Channel.REST, Role.WRITE, "Bearer nope", FAR).reason()).isEqualTo(Reason.UNKNOWN);
    assertThat(a.check(Channel.REST, Role.WRITE, "Basic w-secret", FAR).reason()).isEqualTo(Reason.MISSING);
    Decision ok = a.check(Channel.REST, Role.WRITE, "bearer w-secret", FAR);
    assertThat(ok.allowed()).isTrue();
    assertThat(ok.who()).isEqualTo("ci");

    Authenticator closed = Authenticator.builder().token("ci", Role.WRITE, "w-secret")
        .token("grafana", Role.READ, "r-secret").build();
    assertThat(closed.check(Channel.REST, Role.READ, null, LOOP).reason()).isEqualTo(Reason.MISSING);
    assertThat(closed.check(Channel.REST, Role.READ, "Bearer r-secret", FAR).allowed()).isTrue();
    assertThat(closed.check(Channel.REST, Role.READ, "Bearer w-secret", FAR).allowed()).as("write implies read")
        .isTrue();
    Decision role = closed.check(Channel.GRPC, Role.WRITE, "Bearer r-secret", FAR);
    assertThat(role.reason()).isEqualTo(Reason.ROLE);
    assertThat(role.message()).isEqualTo("authorization: token 'grafana' has role read; writes need role write");
  }

  @Test
  void everyRefusalIsCountedByChannelAndReasonAndGivenToTheHook() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<Authenticator.Refusal> seen = new ArrayList<>();
    Authenticator a = Authenticator.builder().token("ci", Role.WRITE, "w").token("ro", Role.READ, "r")
        .meterRegistry(registry).onRefused(seen::add).build();
    a.check(Channel.REST, Role.WRITE, null, FAR);
    a.check(Channel.REST, Role.WRITE, "Bearer x", FAR);
    a.check(Channel.GRPC, Role.WRITE, "Bearer r", FAR);
    a.check(Channel.DISPATCH, Role.WRITE, "Bearer x", FAR);
    a.check(Channel.REST, Role.WRITE, "Bearer w", FAR); // allowed: not counted
    assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "rest").tag("reason", "missing").counter()
        .count()).isEqualTo(1);
    assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "rest").tag("reason", "unknown").counter()
        .count()).isEqualTo(1);
    assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "grpc").tag("reason", "role").counter()
        .count()).isEqualTo(1);
    assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "dispatch").counter().count()).isEqualTo(1);
    assertThat(seen).extracting(Authenticator.Refusal::reason)
        .containsExactly(Reason.MISSING, Reason.UNKNOWN, Reason.ROLE, Reason.UNKNOWN);
    assertThat(seen.get(2).who()).isEqualTo("ro");
    assertThat(seen.get(0).remote()).isEqualTo(FAR);
  }

  @Test
  void tokensAreKeptAsHashesAndComparedInConstantTime() {
    Tokens t = Tokens.builder().add("a", Role.WRITE, "token-a").add("b", Role.READ, "token-b").build();
    assertThat(t.find("token-b")).get().extracting(Tokens.Token::name).isEqualTo("b");
    assertThat(t.find("token-")).isEmpty();
    assertThat(t.find("token-bb")).isEmpty();
    assertThat(t.all()).allSatisfy(k -> assertThat(k.hash()).hasSize(32)); // SHA-256, never the text
    assertThat(t.toString()).doesNotContain("token-a");
  }

  @Test
  void theCompareIsMessageDigestIsEqualOverHashes() throws Exception {
    // a source check: a plain equals or an early-exit loop would leak the token through timing
    String src = java.nio.file.Files.readString(java.nio.file.Path.of(
        "src/main/java/io/allot/server/auth/Tokens.java"));
    assertThat(src).contains("MessageDigest.isEqual(h, t.hash())").contains("MessageDigest.getInstance(\"SHA-256\")");
    String auth = java.nio.file.Files.readString(java.nio.file.Path.of(
        "src/main/java/io/allot/server/auth/Authenticator.java"));
    assertThat(auth).doesNotContain(".equals(presented)");
  }

  @Test
  void badTokensAreRefusedNamingThem() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Tokens.builder().add("a", Role.WRITE, "x")
        .add("a", Role.READ, "y")).hasMessage("token 'a': the name is given twice");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Tokens.builder().add("a", Role.WRITE, "x")
        .add("b", Role.READ, "x")).hasMessage("token 'b': the same token is given under another name");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Tokens.builder().add("a", Role.WRITE, ""))
        .hasMessageContaining("token 'a'");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Role.parse("admin"))
        .hasMessage("role must be read or write but was 'admin'");
  }
}
