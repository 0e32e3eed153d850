package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;

/** The fence key of any key the fence accepts hashes to the key's cluster slot, by Redis's hash tag rule. */
class FenceKeyProperties {

  @Property(tries = 2000)
  void aFenceKeySharesItsKeysSlot(
      @ForAll @StringLength(min = 1, max = 12) @Chars({'{', '}', 'a', ':'}) @CharRange(from = 'x', to = 'z') String key,
      @ForAll @StringLength(min = 1, max = 6) @CharRange(from = 'a', to = 'e') String prefix) {
    String fenceKey;
    try {
      fenceKey = RedisFence.fenceKey(prefix, key);
    } catch (IllegalArgumentException refused) {
      // refused only when the key has a '}' but no hash tag
      Assume.that(false);
      return;
    }
    assertThat(fenceKey).startsWith(prefix).contains(key);
    assertThat(SlotHash.getSlot(fenceKey)).isEqualTo(SlotHash.getSlot(key));
  }

  @Property(tries = 500)
  void onlyKeysWithAClosingBraceButNoTagAreRefused(
      @ForAll @StringLength(min = 1, max = 10) @Chars({'{', '}', 'a'}) String key) {
    int open = key.indexOf('{');
    boolean hasTag = open >= 0 && key.indexOf('}', open + 1) > open + 1;
    boolean refusable = !hasTag && key.indexOf('}') >= 0;
    if (refusable) {
      assertThatThrownBy(() -> RedisFence.fenceKey("fence:", key)).isInstanceOf(IllegalArgumentException.class);
    } else {
      assertThat(RedisFence.fenceKey("fence:", key)).isNotEmpty();
    }
  }

  @Example
  void examples() {
    assertThat(RedisFence.fenceKey("fence:", "site-42")).isEqualTo("fence:{site-42}");
    assertThat(RedisFence.fenceKey("fence:", "{site-42}:rows")).isEqualTo("fence:{site-42}:rows");
    assertThat(RedisFence.fenceKey("fence:", "a{b")).isEqualTo("fence:{a{b}");
  }
}
