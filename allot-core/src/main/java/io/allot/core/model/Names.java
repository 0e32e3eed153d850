package io.allot.core.model;

import java.util.Comparator;

/** Rules for member ids and unit names, and the one ordering allot uses for them. */
public final class Names {
  private Names() {}

  /**
   * Byte order of the UTF-8 encoding, which is code point order. This is the order Go's
   * {@code sort.Strings} uses, so tables print and compute identically to the original distributor.
   * ({@link String#compareTo} compares UTF-16 units and differs for characters above U+FFFF.)
   */
  public static final Comparator<String> BYTE_ORDER = Names::compareBytes;

  /** Compares two strings by code point, which equals comparing their UTF-8 bytes. */
  public static int compareBytes(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        if (sx != sy) {
          // a surrogate (code point >= U+10000) sorts after every BMP char
          return sx ? 1 : -1;
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /**
   * Checks a unit name: not null, not empty.
   *
   * @return the name
   * @throws IllegalArgumentException naming the problem
   */
  public static String checkUnit(String unit) {
    return checkNotEmpty(unit, "unit name");
  }

  /**
   * Checks a member id: not null, not empty.
   *
   * @return the id
   * @throws IllegalArgumentException naming the problem
   */
  public static String checkMember(String member) {
    return checkNotEmpty(member, "member id");
  }

  private static String checkNotEmpty(String value, String what) {
    if (value == null) {
      throw new IllegalArgumentException(what + " is null");
    }
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " is empty");
    }
    return value;
  }

  /** Quotes a name for an error message, showing invisible characters. */
  public static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('\'');
    int shown = 0;
    for (int i = 0; i < s.length() && shown < 200; i++, shown++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    if (s.length() > 200) {
      b.append("...(").append(s.length()).append(" chars)");
    }
    return b.append('\'').toString();
  }
}
