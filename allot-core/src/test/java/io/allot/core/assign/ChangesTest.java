package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Member;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChangesTest {
  @Test
  void betweenNamesEveryKindOfChange() {
    Changes c = Changes.between(
        List.of(Member.of("a"), Member.of("b"), Member.of("c", 2)),
        List.of(Member.of("b"), Member.of("c", 3), Member.of("d")),
        List.of("u1", "u2"),
        Set.of("u2", "u3"));
    assertThat(c.membersAdded()).containsExactly("d");
    assertThat(c.membersRemoved()).containsExactly("a");
    assertThat(c.membersChanged()).containsExactly("c");
    assertThat(c.unitsAdded()).containsExactly("u3");
    assertThat(c.unitsRemoved()).containsExactly("u1");
    assertThat(c.unitsOnly()).isFalse();
  }

  @Test
  void sameInputsAreNoChange() {
    assertThat(Changes.between(List.of(Member.of("a")), List.of(Member.of("a")), List.of("u"), List.of("u")))
        .isEqualTo(Changes.NONE);
  }
}
