package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.StoreUnavailableException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code -store URI} and the original's {@code -redis-*} flags, mapped onto one store URI. */
class StoreOptionTest {
  @Command(name = "t")
  static final class Holder {
    @Mixin StoreOption store;

    @Mixin RedisFlags redis;
  }

  static String uri(String... args) {
    Holder h = new Holder();
    CommandLine cl = new CommandLine(h);
    cl.setPosixClusteredShortOptionsAllowed(false);
    cl.parseArgs(args);
    return h.store.uri("allot-test", h.redis);
  }

  @Test
  void withoutStoreTheRedisFlagsMakeTheUri() {
    assertThat(uri()).isEqualTo("redis://127.0.0.1:6379?client_name=allot-test");
    assertThat(uri("-redis-addrs", "10.0.0.1:7000")).isEqualTo("redis://10.0.0.1:7000?client_name=allot-test");
    assertThat(uri("-redis-addrs", "a:1, b:2,c:3")).isEqualTo("redis-cluster://a:1,b:2,c:3?client_name=allot-test");
    assertThat(uri("-redis-tls", "-redis-addrs", "a:1")).isEqualTo("rediss://a:1?client_name=allot-test");
    assertThat(uri("-redis-tls=true", "-redis-addrs", "a:1,b:2")).isEqualTo("rediss-cluster://a:1,b:2?client_name=allot-test");
    assertThat(uri("--redis-tls", "false", "-redis-addrs", "a:1")).isEqualTo("redis://a:1?client_name=allot-test");
  }

  @Test
  void thePasswordIsPercentEncodedInTheUserInfo() {
    assertThat(uri("-redis-pass", "s3cret")).isEqualTo("redis://:s3cret@127.0.0.1:6379?client_name=allot-test");
    assertThat(uri("-redis-pass", "p@ss word:/?#%+&,é")).isEqualTo(
        "redis://:p%40ss%20word%3A%2F%3F%23%25%2B%26%2C%C3%A9@127.0.0.1:6379?client_name=allot-test");
  }

  @Test
  void rootCaFilesGoInTheQuery() {
    assertThat(uri("-redis-tls", "-redis-rootca-certs", "/etc/ca/a.pem, /etc/ca/my b.pem"))
        .isEqualTo("rediss://127.0.0.1:6379?ca=/etc/ca/a.pem,/etc/ca/my%20b.pem&client_name=allot-test");
    // as in the original, the CA files matter only with TLS
    assertThat(uri("-redis-rootca-certs", "/etc/ca/a.pem")).isEqualTo("redis://127.0.0.1:6379?client_name=allot-test");
  }

  @Test
  void theBareWordsRedisAndMemoryKeepTheirMeaning() {
    assertThat(uri("-store", "redis", "-redis-addrs", "h:1")).isEqualTo("redis://h:1?client_name=allot-test");
    assertThat(uri("-store", "REDIS", "-redis-addrs", "h:1")).isEqualTo("redis://h:1?client_name=allot-test");
    assertThat(uri("-store", "memory")).isEqualTo("memory:");
    assertThat(uri("--store", "memory:")).isEqualTo("memory:");
  }

  @Test
  void aStoreUriIsUsedAsGivenAndTheRedisFlagsIgnored() {
    assertThat(uri("-store", "postgresql://postgres@127.0.0.1:5432/test", "-redis-addrs", "x:1"))
        .isEqualTo("postgresql://postgres@127.0.0.1:5432/test");
    assertThat(uri("--store=redis-cluster://h1:1,h2:2", "-redis-pass", "x")).isEqualTo("redis-cluster://h1:1,h2:2");
    assertThat(uri("-store", " rediss://:pw@h:6380/2?verify=ca ")).isEqualTo("rediss://:pw@h:6380/2?verify=ca");
    assertThat(uri("-store", "nosuch://x")).isEqualTo("nosuch://x");
  }

  @Test
  void theServerReadsTheStoreFromTheEnvironment() {
    ServerCommand cmd = new ServerCommand();
    CommandLine cl = new CommandLine(cmd);
    cl.setDefaultValueProvider(new EnvDefaults(Map.of("STORE", "memory:", "REDIS_ADDRS", "e:1")::get, Map.of()));
    cl.parseArgs();
    assertThat(cmd.store.uri(null, cmd.redisFlags)).isEqualTo("memory:");
    cmd = new ServerCommand();
    cl = new CommandLine(cmd);
    cl.setDefaultValueProvider(new EnvDefaults(Map.of("REDIS_ADDRS", "e:1,f:2", "REDIS_PASS", "pw")::get, Map.of()));
    cl.parseArgs();
    assertThat(cmd.store.uri(null, cmd.redisFlags)).isEqualTo("redis-cluster://:pw@e:1,f:2");
  }

  @Command(name = "b")
  static final class BenchLike {
    @Mixin StoreOption store = new StoreOption("memory:");
  }

  @Test
  void withoutTheRedisFlagsTheBareWordRedisIsTheLocalRedisAndACommandKeepsItsOwnDefault() {
    Holder none = new Holder();
    new CommandLine(none).parseArgs();
    assertThat(none.store.uri("c")).isEqualTo("redis://127.0.0.1:6379?client_name=c");
    BenchLike b = new BenchLike();
    CommandLine cl = new CommandLine(b);
    assertThat(cl.getUsageMessage().replaceAll("\\s+", " ")).contains("-store, --store=URI").contains("Default memory:.");
    cl.parseArgs();
    assertThat(b.store.uri(null)).isEqualTo("memory:");
    assertThat(b.store.isMemory()).isTrue();
    cl.parseArgs("-store", "redis://h:1");
    assertThat(b.store.uri(null)).isEqualTo("redis://h:1");
    cl.parseArgs();
    assertThat(b.store.uri(null)).as("the default again on the next parse").isEqualTo("memory:");
  }

  @Test
  void everyCommandReadsTheStoreFromTheEnvironmentAndAFlagWins() {
    BenchLike b = new BenchLike();
    CommandLine cl = new CommandLine(b);
    StoreOption.envDefault(cl, Map.of("STORE", "postgresql://p@h/db")::get);
    cl.parseArgs();
    assertThat(b.store.uri(null)).isEqualTo("postgresql://p@h/db");
    cl.parseArgs("--store", "memory");
    assertThat(b.store.uri(null)).isEqualTo("memory:");
    StoreOption.envDefault(cl, Map.of("STORE", " ")::get);
    cl.parseArgs();
    assertThat(b.store.uri(null)).as("an empty STORE is no STORE").isEqualTo("memory:");
    CliRun r = CliRun.of(Map.of("STORE", "nosuch://from-env"), "job", "stats", "--queue", "q");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("nosuch://from-env");
  }

  @Test
  void noRedisAddressIsBadInputNamingTheFlag() {
    assertThatThrownBy(() -> uri("-redis-addrs", " , ")).isInstanceOf(BadInputException.class).hasMessageContaining("-redis-addrs");
    assertThatThrownBy(() -> RedisFlags.redisUri(List.of(), "", false, List.of(), null)).hasMessageContaining("-redis-addrs");
  }

  @Test
  void anOpenFailureIsOneLineNamingTheUriWithoutThePassword() {
    String m = StoreOption.openFailure("redis://:p%40ss@h:1",
        new StoreUnavailableException("cannot connect to h:1 with password p@ss\n  caused by: p%40ss refused"));
    assertThat(m).isEqualTo("cannot reach store 'redis://:***@h:1': cannot connect to h:1 with password *** caused by: *** refused");
    // a message that names the URI already is not prefixed again
    m = StoreOption.openFailure("nosuch://x", new IllegalArgumentException("store 'nosuch://x': unknown scheme 'nosuch'"));
    assertThat(m).isEqualTo("store 'nosuch://x': unknown scheme 'nosuch'");
    m = StoreOption.openFailure("redis://h", new IllegalArgumentException("missing port"));
    assertThat(m).isEqualTo("bad store 'redis://h': missing port");
    // a raw '@' in the password: the whole user info is hidden, whichever '@' the store reads up to
    m = StoreOption.openFailure("redis://u:p@ss@h:1", new StoreUnavailableException("NOAUTH for u with p@ss"));
    assertThat(m).isEqualTo("cannot reach store 'redis://***@h:1': NOAUTH for u with ***");
    // not percent-encoded: still scrubbed, and no failure while scrubbing
    m = StoreOption.openFailure("redis://:50%z@h:1", new StoreUnavailableException("password 50%z refused"));
    assertThat(m).isEqualTo("cannot reach store 'redis://:***@h:1': password *** refused");
  }
}
