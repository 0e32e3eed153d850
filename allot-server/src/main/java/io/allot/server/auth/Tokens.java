package io.allot.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Named bearer tokens with their roles; immutable. Only the SHA-256 of each token is kept, and {@link #find} compares
 * the hash of the presented token with every kept hash by {@link MessageDigest#isEqual} (constant time, no early
 * exit), so neither a token's content nor its length leaks through timing.
 */
public final class Tokens {
  /** One named token: its name and role, and the SHA-256 of its text. */
  public record Token(String name, Role role, byte[] hash) {
    @Override
    public String toString() {
      return name + " (" + role.label() + ")"; // never the hash
    }
  }

  private static final Tokens EMPTY = new Tokens(List.of());

  private final List<Token> tokens;

  private Tokens(List<Token> tokens) {
    this.tokens = List.copyOf(tokens);
  }

  /** No tokens. */
  public static Tokens empty() {
    return EMPTY;
  }

  /** A builder; {@link Builder#add} checks each token. */
  public static Builder builder() {
    return new Builder();
  }

  /** Whether there is no token. */
  public boolean isEmpty() {
    return tokens.isEmpty();
  }

  /** The tokens (names and roles, in the order added). */
  public List<Token> all() {
    return tokens;
  }

  /** Whether some token has exactly {@code role}. */
  public boolean has(Role role) {
    return tokens.stream().anyMatch(t -> t.role() == role);
  }

  /** The token whose text is {@code presented}, compared in constant time against every token; empty if none. */
  public Optional<Token> find(String presented) {
    byte[] h = sha256(presented);
    Token found = null;
    for (Token t : tokens) { // every token is compared: the time does not say which one matched
      if (MessageDigest.isEqual(h, t.hash()) && found == null) {
        found = t;
      }
    }
    return Optional.ofNullable(found);
  }

  /** These tokens and then {@code other}'s. */
  public Tokens and(Tokens other) {
    if (other.isEmpty()) {
      return this;
    }
    List<Token> all = new ArrayList<>(tokens);
    all.addAll(other.tokens);
    return new Tokens(all);
  }

  @Override
  public String toString() {
    return tokens.toString();
  }

  static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Collects tokens; a bad one is refused with a message naming it (never its text). */
  public static final class Builder {
    private final List<Token> tokens = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private final Set<String> texts = new HashSet<>();

    private Builder() {}

    /**
     * Adds a token.
     *
     * @throws IllegalArgumentException if the name or text is empty or has white space, the name is taken, or the
     *                                  same text was given under another name
     */
    public Builder add(String name, Role role, String token) {
      if (name == null || name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("token name must be a non-empty word but was '" + name + "'");
      }
      if (role == null) {
        throw new IllegalArgumentException("token '" + name + "': role must be read or write but was missing");
      }
      if (token == null || token.isEmpty() || token.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("token '" + name + "': the token must be non-empty without white space");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("token '" + name + "': the name is given twice");
      }
      if (!texts.add(token)) {
        throw new IllegalArgumentException("token '" + name + "': the same token is given under another name");
      }
      tokens.add(new Token(name, role, sha256(token)));
      return this;
    }

    /** The tokens. */
    public Tokens build() {
      return tokens.isEmpty() ? EMPTY : new Tokens(tokens);
    }
  }
}
