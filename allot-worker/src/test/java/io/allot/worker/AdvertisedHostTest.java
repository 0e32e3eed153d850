package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.memory.MemoryStore;
import io.allot.worker.AdvertisedHost.Nic;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The default advertised host is an address other hosts can reach, so that two machines never both advertise
 * {@code 127.0.0.1:port}: the choice among interfaces (a pure function), and this machine's default.
 */
class AdvertisedHostTest {

  private static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal); // a literal: no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static Nic up(String name, String... addresses) {
    return new Nic(name, true, false, false, java.util.Arrays.stream(addresses).map(AdvertisedHostTest::ip).toList());
  }

  private static final Nic LO = new Nic("lo", true, true, false, List.of(ip("127.0.0.1"), ip("::1")));

  private static String choose(List<Nic> nics, String localHost) {
    return AdvertisedHost.choose(nics, () -> Optional.ofNullable(localHost).map(AdvertisedHostTest::ip));
  }

  @Test
  void aSiteLocalAddressOfAnUpInterfaceComesFirst() {
    assertThat(choose(List.of(LO, up("eth0", "fe80::1", "192.0.2.2", "fd00::2"), up("eth1", "10.0.0.5")), "127.0.1.1"))
        .isEqualTo("10.0.0.5");
    assertThat(choose(List.of(LO, up("eth0", "fe80::1", "192.0.2.2", "fd00::2")), "127.0.1.1"))
        .as("another IPv4 address before IPv6").isEqualTo("192.0.2.2");
    assertThat(choose(List.of(LO, up("eth0", "fe80::1", "fd00::2")), null)).as("IPv6, in brackets")
        .isEqualTo("[" + ip("fd00::2").getHostAddress() + "]");
  }

  @Test
  void loopbackDownVirtualLinkLocalAndHostLocalBridgesAreSkipped() {
    Nic down = new Nic("eth2", false, false, false, List.of(ip("10.0.0.9")));
    Nic virtual = new Nic("eth0:1", true, false, true, List.of(ip("10.0.0.8")));
    Nic linkLocal = up("eth3", "169.254.1.1", "fe80::3");
    Nic docker = up("docker0", "172.17.0.1");
    assertThat(choose(List.of(LO, down, virtual, linkLocal, docker, up("eth0", "192.0.2.2")), null))
        .isEqualTo("192.0.2.2");
    assertThat(choose(List.of(LO, down, virtual, linkLocal, docker), "10.1.1.1"))
        .as("then the local host's address").isEqualTo("10.1.1.1");
    assertThat(choose(List.of(LO, down, virtual, linkLocal, docker), "127.0.1.1"))
        .as("then a host-local bridge, rather than loopback").isEqualTo("172.17.0.1");
    assertThat(choose(List.of(LO, down), "127.0.1.1")).as("nothing else: loopback, warned").isEqualTo("127.0.0.1");
    assertThat(choose(List.of(), null)).isEqualTo("127.0.0.1");
  }

  @Test
  void theDefaultHostIsNotLoopbackOnAMachineWithAnotherInterface() throws Exception {
    boolean another = Collections.list(NetworkInterface.getNetworkInterfaces()).stream().anyMatch(n -> {
      try {
        return n.isUp() && !n.isLoopback() && Collections.list(n.getInetAddresses()).stream()
            .anyMatch(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress());
      } catch (java.net.SocketException e) {
        return false;
      }
    });
    // skipped only where the machine has nothing but loopback: then 127.0.0.1 is the right (and only) answer
    Assumptions.assumeTrue(another, "this machine has no up interface with a non-loopback address: nothing to check");
    try (MemoryStore store = new MemoryStore()) {
      String id = Divider.builder(store).pool("p").port(7001).build().memberId();
      String host = id.substring(0, id.lastIndexOf(':'));
      assertThat(ip(host.replace("[", "").replace("]", "")).isLoopbackAddress()).as("default host %s", host).isFalse();
    }
  }
}
