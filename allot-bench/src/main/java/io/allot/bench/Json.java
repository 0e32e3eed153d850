package io.allot.bench;

import java.util.Locale;

/** Just enough JSON writing for the report: no dependency. */
final class Json {
  private final StringBuilder b = new StringBuilder();
  private final boolean[] first = new boolean[64];
  private int depth;
  private boolean pendingKey;

  Json beginObject() {
    value();
    b.append('{');
    first[++depth] = true;
    return this;
  }

  Json endObject() {
    depth--;
    newline();
    b.append('}');
    return this;
  }

  Json beginArray() {
    value();
    b.append('[');
    first[++depth] = true;
    return this;
  }

  Json endArray() {
    depth--;
    newline();
    b.append(']');
    return this;
  }

  Json key(String k) {
    separator();
    quote(k);
    b.append(": ");
    pendingKey = true;
    return this;
  }

  Json value(String s) {
    value();
    if (s == null) {
      b.append("null");
    } else {
      quote(s);
    }
    return this;
  }

  Json value(long v) {
    value();
    b.append(v);
    return this;
  }

  Json value(boolean v) {
    value();
    b.append(v);
    return this;
  }

  /** A number with up to {@code decimals} decimals; NaN and infinities become null. */
  Json value(double v, int decimals) {
    value();
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      b.append("null");
    } else {
      String s = String.format(Locale.ROOT, "%." + decimals + "f", v);
      if (s.indexOf('.') >= 0) {
        s = s.replaceAll("0+$", "");
        if (s.endsWith(".")) {
          s = s.substring(0, s.length() - 1);
        }
      }
      b.append(s.equals("-0") ? "0" : s);
    }
    return this;
  }

  Json field(String k, String v) {
    return key(k).value(v);
  }

  Json field(String k, long v) {
    return key(k).value(v);
  }

  Json field(String k, boolean v) {
    return key(k).value(v);
  }

  Json field(String k, double v, int decimals) {
    return key(k).value(v, decimals);
  }

  @Override
  public String toString() {
    return b.toString();
  }

  private void value() {
    if (pendingKey) {
      pendingKey = false;
    } else {
      separator();
    }
  }

  private void separator() {
    if (depth == 0) {
      return;
    }
    if (!first[depth]) {
      b.append(',');
    }
    first[depth] = false;
    newline();
  }

  private void newline() {
    b.append('\n');
    for (int i = 0; i < depth; i++) {
      b.append("  ");
    }
  }

  private void quote(String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
