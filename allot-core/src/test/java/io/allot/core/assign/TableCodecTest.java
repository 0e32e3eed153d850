package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The one encoding of a table's fields: what every reader and writer of a distribution hash agrees on. */
class TableCodecTest {

  @Test
  void decodeSplitsAtEveryCommaAndDropsEmptyPieces() {
    assertThat(TableCodec.decode("u1,u2")).containsExactly("u1", "u2");
    assertThat(TableCodec.decode("a,,b,")).containsExactly("a", "b");
    assertThat(TableCodec.decode(",")).isEmpty();
    assertThat(TableCodec.decode("")).as("an empty field is no units").isEmpty();
    assertThat(TableCodec.decode((String) null)).as("a missing field is no units").isEmpty();
  }

  @Test
  void decodeTrimsNothing() {
    assertThat(TableCodec.decode(" a, b ")).containsExactly(" a", " b ");
    assertThat(TableCodec.decode(TableCodec.encode(List.of(" a", "a")))).containsExactly(" a", "a");
  }

  @Test
  void encodeJoinsInOrderAndRejectsWhatTheLayoutCannotStore() {
    assertThat(TableCodec.encode(List.of("u2", "u1"))).isEqualTo("u2,u1");
    assertThat(TableCodec.encode(List.of())).isEmpty();
    assertThatThrownBy(() -> TableCodec.encode(List.of("a", "b,c"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'b,c'").hasMessageContaining("','");
    assertThatThrownBy(() -> TableCodec.encode(List.of(""))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> TableCodec.checkUnit(null)).isInstanceOf(IllegalArgumentException.class);
  }

  /** decode(encode(units)) == units for every list of valid units (seeded generator). */
  @Test
  void decodeInvertsEncode() {
    Random rnd = new Random(7);
    String alphabet = "ab ,\t:\u00e9\uD83D\uDE00x";
    for (int round = 0; round < 2000; round++) {
      List<String> units = new ArrayList<>();
      int n = rnd.nextInt(6);
      for (int i = 0; i < n; i++) {
        StringBuilder b = new StringBuilder();
        int len = 1 + rnd.nextInt(4);
        while (b.length() < len) {
          char c = alphabet.charAt(rnd.nextInt(alphabet.length()));
          if (c != ',' && !Character.isSurrogate(c)) {
            b.append(c);
          } else if (c == '\uD83D') {
            b.append("\uD83D\uDE00");
          }
        }
        units.add(b.toString());
      }
      assertThat(TableCodec.decode(TableCodec.encode(units))).as("units %s", units).isEqualTo(units);
    }
  }

  @Test
  void decodingATableListsEveryMemberInByteOrder() {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("m2", "u3");
    fields.put("m1", "u1,u2");
    fields.put("m3", "");
    Map<String, List<String>> units = TableCodec.decode(fields);
    assertThat(units).containsExactly(Map.entry("m1", List.of("u1", "u2")), Map.entry("m2", List.of("u3")),
        Map.entry("m3", List.of()));
  }

  /**
   * A unit listed twice is kept by the first member in byte order (UTF-8 bytes, not {@link String#compareTo}: the
   * member "\uFF01" sorts before a member with a character above U+FFFF in byte order but after it by UTF-16 units).
   */
  @Test
  void aUnitListedTwiceIsKeptByTheFirstMemberInByteOrder() {
    String bmp = "\uFF01";
    String astral = "\uD83D\uDE00";
    Map<String, List<String>> table = new HashMap<>();
    table.put(astral, List.of("u", "v"));
    table.put(bmp, List.of("u", "w", "w"));
    List<String> dropped = new ArrayList<>();
    Map<String, List<String>> out = TableCodec.withoutDuplicates(table, dropped::add);
    assertThat(out).containsExactly(Map.entry(bmp, List.of("u", "w")), Map.entry(astral, List.of("v")));
    assertThat(dropped).hasSize(2).anyMatch(m -> m.contains("'w'")).anyMatch(m -> m.contains("'u'"));
  }

  @Test
  void seedLayoutParsesAHashWithTheCodec() {
    List<String> dropped = new ArrayList<>();
    Table t = SeedLayout.parseHash(Map.of("m2", "u1,u3", "m1", "u1,,u2"), dropped::add);
    assertThat(t.byMember()).containsEntry("m1", List.of("u1", "u2")).containsEntry("m2", List.of("u3"));
    assertThat(dropped).singleElement().asString().contains("'u1'").contains("'m2'");
    assertThat(t.toDistributionHash()).containsEntry("m1", "u1,u2").containsEntry("m2", "u3");
  }
}
