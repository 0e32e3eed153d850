package io.allot.cli.dev;

import io.allot.server.dev.DemoMember;

/**
 * A ping-only demo member of the original Go distributor's layout: a {@link DemoMember} (a gRPC server answering the
 * health ping, every other one also the legacy ping) listed in the demo pool's services list. Holds no units itself:
 * the table says which are its. Thread-safe.
 */
final class PingMember implements DevMember {
  private final DemoMember member;
  private final String pool;

  PingMember(boolean legacy, String pool) {
    this.member = new DemoMember(0, true, legacy).start();
    this.pool = pool;
  }

  String address() {
    return member.address();
  }

  @Override
  public String describe() {
    return "demo member " + member.address() + " of " + pool;
  }

  @Override
  public boolean running() {
    return member.running();
  }

  @Override
  public void start() {
    member.start();
  }

  @Override
  public void stop() {
    member.stop();
  }

  @Override
  public int held() {
    return 0;
  }
}
