package io.allot.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

class StoresTest {

  @Test
  void opensTheMemoryStoreThroughItsProvider() {
    try (Store s = Stores.open(" memory: ")) {
      assertThat(s).isInstanceOf(MemoryStore.class);
      assertThat(s.describe()).isEqualTo("memory:");
    }
    assertThat(Stores.forms()).contains("memory:");
  }

  @Test
  void aBadUriNamesItselfAndTheKnownForms() {
    assertThatThrownBy(() -> Stores.open("nosuch://h:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'nosuch://h:1'").hasMessageContaining("unknown scheme 'nosuch'")
        .hasMessageContaining("memory:");
    assertThatThrownBy(() -> Stores.open("memory"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'memory' is not a URI");
    assertThatThrownBy(() -> Stores.open("memory:extra"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memory:extra");
  }

  @Test
  void passwordsNeverAppearInMessages() {
    assertThat(Stores.redact("redis://:s3cret@h:6379/0")).isEqualTo("redis://:***@h:6379/0");
    assertThat(Stores.redact("postgresql://u:p%40ss@h/db")).isEqualTo("postgresql://u:***@h/db");
    assertThat(Stores.redact("redis://h:6379")).isEqualTo("redis://h:6379");
    assertThat(Stores.redact("redis://user@h:6379")).isEqualTo("redis://user@h:6379");
    assertThat(Stores.redact("redis://u:p@ss/w?rd@h:6379")).isEqualTo("redis://u:***@h:6379");
    assertThatThrownBy(() -> Stores.open("nosuch://u:s3cret@h:1"))
        .hasMessageNotContaining("s3cret").hasMessageContaining("u:***@h:1");
  }

  @Test
  void topicsKeepTheChannelNamesOfEarlierReleases() {
    assertThat(Topic.table("sys-matching-table").channel()).isEqualTo("allot:notify:sys-matching-table");
    assertThat(Topic.members("p").channel()).isEqualTo("allot:members:p");
    assertThat(Topic.releases("p").channel()).isEqualTo("allot:owners:p");
    assertThat(Topic.key("sys-channels").channel()).isEqualTo("allot:changes:sys-channels");
    assertThat(Topic.named("x").channel()).isEqualTo("x");
    assertThatThrownBy(() -> Topic.members("")).hasMessageContaining("MEMBERS");
  }

  @Test
  void memberMetaChecksItsValuesAndNamesTheBadOne() {
    assertThatThrownBy(() -> MemberMeta.of(-1, 1)).hasMessageContaining("affinity");
    assertThatThrownBy(() -> MemberMeta.of(1, -1)).hasMessageContaining("capacity");
    assertThatThrownBy(() -> MemberMeta.DEFAULT.with("bad name", "v")).hasMessageContaining("'bad name'");
    assertThatThrownBy(() -> MemberMeta.DEFAULT.with("v", "x".repeat(257))).hasMessageContaining("'v'");
    MemberMeta m = MemberMeta.DEFAULT.with("b", "2").with("a", "x=y&z é");
    assertThat(m.attributes().keySet()).containsExactly("a", "b");
    assertThat(MemberMeta.decodeAttributes(m.encodeAttributes())).isEqualTo(m.attributes());
    assertThat(MemberMeta.decodeAttributes("")).isEmpty();
    assertThatThrownBy(() -> MemberMeta.decodeAttributes("novalue")).hasMessageContaining("novalue");
  }
}
