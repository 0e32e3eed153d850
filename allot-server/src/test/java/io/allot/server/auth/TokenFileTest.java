package io.allot.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenFileTest {
  @TempDir Path dir;

  static boolean accepts(TokenFile f, String token) {
    return f.get().find(token).isPresent();
  }

  @Test
  void aReloadPicksUpANewTokenAndDropsARemovedOne() throws Exception {
    Path p = dir.resolve("tokens");
    Files.writeString(p, "# name role token\nci write tok-ci\n\ngrafana read tok-graf\n");
    TokenFile f = TokenFile.load(p, Duration.ZERO);
    assertThat(f.get().all()).extracting(Tokens.Token::name).containsExactly("ci", "grafana");
    assertThat(f.get().find("tok-graf")).get().extracting(Tokens.Token::role).isEqualTo(Role.READ);

    Files.writeString(p, "deploy write tok-deploy\ngrafana read tok-graf\n");
    assertThat(accepts(f, "tok-deploy")).isTrue();
    assertThat(accepts(f, "tok-ci")).as("removed").isFalse();
    assertThat(f.lastError()).isNull();
  }

  @Test
  void theAuthenticatorSeesTheReload() throws Exception {
    Path p = dir.resolve("tokens");
    Files.writeString(p, "ci write tok-ci\n");
    Authenticator a = Authenticator.builder().tokens(TokenFile.load(p, Duration.ZERO)).build();
    assertThat(a.check(Authenticator.Channel.REST, Role.WRITE, "Bearer tok-ci", null).allowed()).isTrue();
    Files.writeString(p, "ci read tok-ci\n");
    assertThat(a.check(Authenticator.Channel.REST, Role.WRITE, "Bearer tok-ci", null).reason())
        .isEqualTo(Authenticator.Reason.ROLE);
  }

  @Test
  void aBadLineAtStartNamesTheFileAndLine() throws Exception {
    Path p = dir.resolve("tokens");
    Files.writeString(p, "ci write tok-ci\ngrafana admin tok-graf\n");
    assertThatThrownBy(() -> TokenFile.load(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("token file " + p + " line 2: role must be read or write but was 'admin'");
    Files.writeString(p, "ci write\n");
    assertThatThrownBy(() -> TokenFile.load(p))
        .hasMessage("token file " + p + " line 1: must be 'name role token' (3 fields) but has 2");
    assertThatThrownBy(() -> TokenFile.load(dir.resolve("none"))).hasMessageStartingWith("token file "
        + dir.resolve("none") + ": cannot read it");
  }

  @Test
  void aBadLineOnReloadKeepsTheOldTokensAndSaysWhy() throws Exception {
    Path p = dir.resolve("tokens");
    Files.writeString(p, "ci write tok-ci\n");
    TokenFile f = TokenFile.load(p, Duration.ZERO);
    Files.writeString(p, "ci write tok-ci\nci write tok-other\n");
    assertThat(accepts(f, "tok-ci")).isTrue();
    assertThat(accepts(f, "tok-other")).isFalse();
    assertThat(f.lastError()).isEqualTo("token file " + p + " line 2: token 'ci': the name is given twice");
    assertThat(f.lastError()).doesNotContain("tok-other");
    Files.delete(p);
    assertThat(accepts(f, "tok-ci")).as("an unreadable file keeps the tokens too").isTrue();
    assertThat(f.lastError()).contains("cannot read it");
    Files.writeString(p, "ops write tok-ops\n");
    assertThat(accepts(f, "tok-ops")).isTrue();
    assertThat(f.lastError()).isNull();
  }
}
