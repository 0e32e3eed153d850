package io.allot.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict little JSON parser for the tests: objects, arrays, strings, numbers, literals. */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  /** Parses a whole document; throws IllegalArgumentException with the offset on any error. */
  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.fail("trailing characters");
    }
    return v;
  }

  private Object value() {
    ws();
    if (i >= s.length()) {
      throw fail("unexpected end");
    }
    char c = s.charAt(i);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    ws();
    if (peek('}')) {
      i++;
      return m;
    }
    while (true) {
      ws();
      String k = string();
      ws();
      expect(':');
      if (m.put(k, value()) != null) {
        throw fail("duplicate key " + k);
      }
      ws();
      if (peek(',')) {
        i++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    i++;
    ws();
    if (peek(']')) {
      i++;
      return l;
    }
    while (true) {
      l.add(value());
      ws();
      if (peek(',')) {
        i++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      if (i >= s.length()) {
        throw fail("unterminated string");
      }
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c < 0x20) {
        throw fail("control character in string");
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case '"', '\\', '/' -> b.append(e);
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> throw fail("bad escape");
        }
      } else {
        b.append(c);
      }
    }
  }

  private Double number() {
    int start = i;
    if (peek('-')) {
      i++;
    }
    while (i < s.length() && "0123456789.eE+-".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    String t = s.substring(start, i);
    if (!t.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
      throw fail("bad number '" + t + "'");
    }
    return Double.parseDouble(t);
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, i)) {
      throw fail("bad literal");
    }
    i += word.length();
    return v;
  }

  private void ws() {
    while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
  }

  private boolean peek(char c) {
    return i < s.length() && s.charAt(i) == c;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw fail("expected '" + c + "'");
    }
    i++;
  }

  private IllegalArgumentException fail(String why) {
    return new IllegalArgumentException(why + " at offset " + i);
  }
}
