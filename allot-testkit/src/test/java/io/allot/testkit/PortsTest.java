package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class PortsTest {

  @Test
  void aFreePortCanBeBoundAndABoundOneIsNotFree() throws Exception {
    int port = Ports.free();
    assertThat(port).isBetween(1, 65_535);
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", port));
      assertThat(Ports.bindable(port)).isFalse();
    }
  }

  @Test
  void aFreePairLeavesBothPortsFree() {
    int port = Ports.freePair(10_000);
    assertThat(Ports.bindable(port)).isTrue();
    assertThat(Ports.bindable(port + 10_000)).isTrue();
    assertThatThrownBy(() -> Ports.freePair(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
  }
}
