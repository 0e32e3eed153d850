package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The judgement of the connect-time durability check, setting by setting, and reading it from a real server. */
class PgDurabilityTest {
  private static final String WHERE = "postgresql://u@db:5432/allot";

  private static PgDurability.Settings durable() {
    return new PgDurability.Settings(false, "on", "on", "on", List.of(), 0, "allot");
  }

  @Test
  void durableSettingsHaveNothingToSay() {
    PgDurability.Assessment a = PgDurability.assess(WHERE, durable());
    assertThat(a.lossPossible()).isFalse();
    assertThat(a.findings()).isEmpty();
    assertThat(PgDurability.assess(WHERE, new PgDurability.Settings(false, "on", "remote_apply", "on", List.of(), 0,
        "allot")).findings()).as("synchronous standbys lose nothing").isEmpty();
  }

  @Test
  void eachSettingThatAllowsLosingWritesIsAFindingNamingIt() {
    assertThat(PgDurability.assess(WHERE, new PgDurability.Settings(false, "off", "on", "on", List.of(), 0, "allot"))
        .findings()).singleElement().asString().startsWith("fsync=off: ").contains("lost-state guard");
    assertThat(PgDurability.assess(WHERE, new PgDurability.Settings(false, "on", "off", "on", List.of(), 0, "allot"))
        .findings()).singleElement().asString().startsWith("synchronous_commit=off: ").contains("server crash");
    assertThat(PgDurability.assess(WHERE, new PgDurability.Settings(false, "on", "on", "off", List.of(), 0, "allot"))
        .findings()).singleElement().asString().startsWith("full_page_writes=off: ").contains("torn pages");
    PgDurability.Assessment standbys = PgDurability.assess(WHERE, new PgDurability.Settings(false, "on", "on", "on",
        List.of("replica1 (10.0.0.2)", "replica2 (10.0.0.3)"), 1, "allot"));
    assertThat(standbys.lossPossible()).isTrue();
    assertThat(standbys.findings()).hasSize(3);
    assertThat(standbys.findings().get(0)).startsWith("standby replica1 (10.0.0.2) replicates asynchronously")
        .contains("failover");
    assertThat(standbys.findings().get(2)).startsWith("1 standby(s)").contains("user allot").contains("pg_monitor");
    PgDurability.Assessment all = PgDurability.assess(WHERE, new PgDurability.Settings(false, "off", "off", "off",
        List.of(), 0, "allot"));
    assertThat(all.lossPossible()).isTrue();
    assertThat(all.findings()).hasSize(3);
  }

  @Test
  void aServerInRecoveryIsRefused() {
    assertThatThrownBy(() -> PgDurability.assess(WHERE, new PgDurability.Settings(true, "on", "on", "on", List.of(),
        0, "allot")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(WHERE + " is a standby")
        .hasMessageContaining("pg_is_in_recovery()")
        .hasMessageContaining("target_session_attrs=read-write");
  }

  @Test
  void readsTheTestServer() throws Exception {
    try (Connection c = TestSchema.raw()) {
      PgDurability.Settings s = PgDurability.read(c);
      assertThat(s.inRecovery()).isFalse();
      assertThat(s.fsync()).isIn("on", "off");
      assertThat(s.synchronousCommit()).isIn("on", "off", "local", "remote_write", "remote_apply");
      assertThat(s.fullPageWrites()).isIn("on", "off");
      assertThat(s.user()).isNotEmpty();
    }
  }
}
