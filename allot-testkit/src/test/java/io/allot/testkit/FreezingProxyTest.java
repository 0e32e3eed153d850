package io.allot.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class FreezingProxyTest {

  @Test
  void forwardsUntilFrozenThenHoldsEverythingWithoutClosingAndDeliversItWhenThawed() throws Exception {
    try (ServerSocket echo = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      Thread server = new Thread(() -> {
        try (Socket s = echo.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
          int b;
          while ((b = in.read()) >= 0) {
            out.write(b);
            out.flush();
          }
        } catch (Exception e) {
          // the test ended
        }
      });
      server.setDaemon(true);
      server.start();
      try (FreezingProxy proxy = FreezingProxy.to("127.0.0.1", echo.getLocalPort());
          Socket c = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
        c.setSoTimeout(5_000);
        c.getOutputStream().write('a');
        assertThat(c.getInputStream().read()).isEqualTo('a');

        proxy.freeze();
        c.getOutputStream().write('b');
        c.setSoTimeout(300);
        // neither the byte nor an end of stream comes: a read times out (an EOF would return -1)
        assertThatThrownBy(() -> c.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);

        proxy.thaw();
        c.setSoTimeout(5_000);
        assertThat(c.getInputStream().read()).isEqualTo('b');
      }
    }
  }

  @Test
  void aBadPortIsNamed() {
    assertThatThrownBy(() -> FreezingProxy.to("127.0.0.1", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port").hasMessageContaining("0");
  }
}
