package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.lists;

import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The fence key of any key the fence accepts hashes to the key's cluster slot, by Redis's hash tag rule. The
 * properties are QuickTheories theories over keys made of braces and a few letters, after the short keys at the
 * edges; a failure prints the falsifying key and the seed, which {@code -DQT_SEED=...} replays.
 */
class FenceKeyProperties {

  /** Strings of {@code min} to {@code max} chars, each one of {@code chars}. */
  static Gen<String> strings(String chars, int min, int max) {
    List<Character> from = chars.chars().mapToObj(c -> (char) c).toList();
    return lists().of(arbitrary().pick(from)).ofSizeBetween(min, max)
        .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()));
  }

  /** Short keys at the edges: each char alone, empty and nested tags, a '}' before the tag, two tags. */
  static final List<String> EDGE_KEYS = List.of("{", "}", "a", ":", "x", "z", "{}", "}{", "{a}", "{}a", "}{a}", "{{}}",
      "{{a}}", "a{}b{c}", "x}y{z}", "{a}{b}", "{x:}");

  @Test
  void aFenceKeySharesItsKeysSlot() {
    for (String key : EDGE_KEYS) {
      aFenceKeySharesItsKeysSlot(key, "a");
      aFenceKeySharesItsKeysSlot(key, "eeeeee");
    }
    qt().withExamples(2000).forAll(strings("{}a:xyz", 1, 12), strings("abcde", 1, 6))
        .checkAssert(this::aFenceKeySharesItsKeysSlot);
  }

  private void aFenceKeySharesItsKeysSlot(String key, String prefix) {
    String fenceKey;
    try {
      fenceKey = RedisFence.fenceKey(prefix, key);
    } catch (IllegalArgumentException refused) {
      // refused only when the key has a '}' but no hash tag (the next property): nothing to check here
      return;
    }
    assertThat(fenceKey).as("fence key of %s with prefix %s", key, prefix).startsWith(prefix).contains(key);
    assertThat(SlotHash.getSlot(fenceKey)).as("slot of %s, key %s", fenceKey, key).isEqualTo(SlotHash.getSlot(key));
  }

  @Test
  void onlyKeysWithAClosingBraceButNoTagAreRefused() {
    EDGE_KEYS.stream().filter(k -> k.matches("[{}a]+")).forEach(this::onlyKeysWithAClosingBraceButNoTagAreRefused);
    qt().withExamples(500).forAll(strings("{}a", 1, 10)).checkAssert(this::onlyKeysWithAClosingBraceButNoTagAreRefused);
  }

  private void onlyKeysWithAClosingBraceButNoTagAreRefused(String key) {
    int open = key.indexOf('{');
    boolean hasTag = open >= 0 && key.indexOf('}', open + 1) > open + 1;
    boolean refusable = !hasTag && key.indexOf('}') >= 0;
    if (refusable) {
      assertThatThrownBy(() -> RedisFence.fenceKey("fence:", key)).as("key %s", key)
          .isInstanceOf(IllegalArgumentException.class);
    } else {
      assertThat(RedisFence.fenceKey("fence:", key)).as("key %s", key).isNotEmpty();
    }
  }

  @Test
  void examples() {
    assertThat(RedisFence.fenceKey("fence:", "site-42")).isEqualTo("fence:{site-42}");
    assertThat(RedisFence.fenceKey("fence:", "{site-42}:rows")).isEqualTo("fence:{site-42}:rows");
    assertThat(RedisFence.fenceKey("fence:", "a{b")).isEqualTo("fence:{a{b}");
  }
}
