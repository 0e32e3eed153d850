package io.allot.worker;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default advertised host (the first part of the member id, the address the distributor pings): an address
 * other hosts can reach, so that two machines never both advertise {@code 127.0.0.1:port}. In this order:
 * <ol>
 *   <li>an address of an interface that is up, not loopback, not virtual (a sub-interface) and not a host-local
 *   bridge (docker, veth, libvirt, CNI...): a site-local IPv4 address first, then another IPv4 address, then a
 *   global or unique-local IPv6 address; never a link-local one; interfaces in the system's order;</li>
 *   <li>{@link InetAddress#getLocalHost()}, if it is not a loopback address;</li>
 *   <li>an address of a host-local bridge, by the same ranking;</li>
 *   <li>{@code 127.0.0.1}, with a warning: only processes of this machine can reach the member.</li>
 * </ol>
 * Set the host explicitly ({@link Divider.Builder#host(String)}) where this guess is wrong (several networks, NAT).
 * The choice itself ({@link #choose}) is a pure function of the interfaces, for tests.
 */
final class AdvertisedHost {
  private static final Logger log = LoggerFactory.getLogger(AdvertisedHost.class);

  /** Interfaces whose addresses only this host (or its containers) can reach. */
  private static final Pattern HOST_LOCAL_BRIDGE =
      Pattern.compile("^(docker|br-|veth|virbr|vnet|cni|flannel|cali|weave|kube-|lxc|lxd|podman|vmnet|vboxnet)");

  /** What {@link #choose} needs of one network interface. */
  record Nic(String name, boolean up, boolean loopback, boolean virtual, List<InetAddress> addresses) {}

  private AdvertisedHost() {}

  /** The default host of this machine (see the class comment). */
  static String detect() {
    return choose(interfaces(), AdvertisedHost::localHost);
  }

  /**
   * The host to advertise among {@code nics}, else {@code localHost}'s, else 127.0.0.1 (warned).
   *
   * @param nics      the interfaces, in the system's order
   * @param localHost {@link InetAddress#getLocalHost()}, empty if it fails; asked only when no interface fits
   */
  static String choose(List<Nic> nics, Supplier<Optional<InetAddress>> localHost) {
    Optional<InetAddress> pick = best(nics, false)
        .or(() -> localHost.get().filter(AdvertisedHost::reachable))
        .or(() -> best(nics, true));
    if (pick.isPresent()) {
      return format(pick.get());
    }
    log.warn("no network interface other than loopback found: advertising 127.0.0.1, which only processes of this"
        + " machine can reach; set Divider.Builder.host(...) to an address the distributor can dial");
    return "127.0.0.1";
  }

  /** The best address of the fitting interfaces, host-local bridges only if {@code bridges}. */
  private static Optional<InetAddress> best(List<Nic> nics, boolean bridges) {
    List<InetAddress> candidates = new ArrayList<>();
    for (Nic n : nics) {
      if (n.up() && !n.loopback() && !n.virtual() && HOST_LOCAL_BRIDGE.matcher(n.name()).find() == bridges) {
        n.addresses().stream().filter(AdvertisedHost::reachable).forEach(candidates::add);
      }
    }
    return candidates.stream().min(Comparator.comparingInt(AdvertisedHost::rank)); // stable: the first of a rank
  }

  /** Not loopback, link-local, wildcard or multicast. */
  private static boolean reachable(InetAddress a) {
    return !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress() && !a.isMulticastAddress();
  }

  /** 0: site-local IPv4, 1: other IPv4, 2: IPv6. */
  private static int rank(InetAddress a) {
    if (a instanceof Inet4Address) {
      return a.isSiteLocalAddress() ? 0 : 1;
    }
    return 2;
  }

  /** The literal for a member id: IPv6 in brackets, without a scope. */
  private static String format(InetAddress a) {
    String s = a.getHostAddress();
    if (a instanceof Inet6Address) {
      int scope = s.indexOf('%');
      return "[" + (scope >= 0 ? s.substring(0, scope) : s) + "]";
    }
    return s;
  }

  private static List<Nic> interfaces() {
    List<Nic> out = new ArrayList<>();
    try {
      for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        try {
          out.add(new Nic(n.getName(), n.isUp(), n.isLoopback(), n.isVirtual(),
              Collections.list(n.getInetAddresses())));
        } catch (SocketException e) {
          log.debug("interface {} skipped: {}", n.getName(), e.toString());
        }
      }
    } catch (SocketException | RuntimeException e) {
      log.debug("listing the network interfaces failed: {}", e.toString());
    }
    return out;
  }

  private static Optional<InetAddress> localHost() {
    try {
      return Optional.of(InetAddress.getLocalHost());
    } catch (UnknownHostException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
