package io.allot.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Store;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link DevNames}: every name prefixed, all distinct, each pool a valid pool name; a bad prefix named. */
class DevNamesTest {
  @Test
  void aPrefixGoesInFrontOfEveryNameAndTheNamesStayDistinctAndValid() {
    DevNames d = DevNames.withPrefix("run-7.");
    assertThat(d.demoPool()).isEqualTo("run-7.sys-robots-list");
    assertThat(d.queue()).isEqualTo("run-7.dev-emails");
    assertThat(DevNames.withPrefix("")).isEqualTo(DevNames.DEFAULT);
    List<String> all = List.of(d.demoPool(), d.units(), d.workerPool(), d.workerUnits(), d.taskPool(), d.taskUnits(),
        d.table(), d.queue());
    assertThat(all).doesNotHaveDuplicates().allSatisfy(n -> assertThat(n).startsWith("run-7."));
    d.pools().forEach(Store::checkPool);
  }

  @Test
  void aBadPrefixIsNamed() {
    for (String bad : new String[] {"a b", "x:y", "{tag}", "a".repeat(41)}) {
      assertThatThrownBy(() -> DevNames.withPrefix(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--key-prefix");
    }
  }
}
