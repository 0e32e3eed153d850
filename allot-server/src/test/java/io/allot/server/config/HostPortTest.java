package io.allot.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostPortTest {
  @Test
  void parses() {
    assertThat(HostPort.parse("127.0.0.1:8080")).isEqualTo(new HostPort("127.0.0.1", 8080));
    assertThat(HostPort.parse("parser-1.svc:50051").host()).isEqualTo("parser-1.svc");
    assertThat(HostPort.parse("[::1]:9000")).isEqualTo(new HostPort("::1", 9000));
    assertThat(HostPort.parse("[::1]:9000").target()).isEqualTo("[::1]:9000");
  }

  @Test
  void rejectsNamingTheAddress() {
    for (String bad : new String[] {"", "host", "host:", ":80", "host:0", "host:65536", "host:http", "::1:80", "a b:80"}) {
      assertThatThrownBy(() -> HostPort.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> HostPort.parse("host:http")).hasMessageContaining("'host:http'");
  }
}
