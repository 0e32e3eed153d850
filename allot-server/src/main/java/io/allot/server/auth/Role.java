package io.allot.server.auth;

import java.util.Locale;

/** What a token may do: {@code read} the API, or {@code write} it (which implies read). */
public enum Role {
  READ,
  WRITE;

  /** Whether a token of this role may do what {@code needed} asks. */
  public boolean allows(Role needed) {
    return this == WRITE || needed == READ;
  }

  /** The role as written in a token file: {@code read} or {@code write}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The role named {@code text} ({@code read} or {@code write}, any case).
   *
   * @throws IllegalArgumentException naming the text otherwise
   */
  public static Role parse(String text) {
    for (Role r : values()) {
      if (r.label().equalsIgnoreCase(text)) {
        return r;
      }
    }
    throw new IllegalArgumentException("role must be read or write but was '" + text + "'");
  }
}
