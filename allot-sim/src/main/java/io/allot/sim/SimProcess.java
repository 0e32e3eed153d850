package io.allot.sim;

import io.allot.store.UnitOwner;
import io.allot.worker.Divider;
import io.allot.worker.DividerBackend;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One member process: the SDK's real {@link Divider} (its {@code MemberSession}, {@code ReconcileLoop},
 * {@code Releaser}, {@code EventDispatcher} and {@code MemberShutdown}, on their own threads) built with the
 * simulator's {@link Fibers} as its {@link DividerBackend} and a {@link SimLink} as its store, and the application
 * ({@link SimApp}) as its listener. {@code start()} and {@code cancel()} run on threads of the process, as an
 * application's main thread would call them; the application's non-blocking calls ({@code confirmStop},
 * {@code release}, {@code setAffinity}) are events of the process (held back while it is paused) on the kernel.
 *
 * <p>A pause holds back every thread of the process (their resumptions are its events); a kill unwinds them. The
 * application's handlers are not paused: they notice that the lease is no longer valid the moment it is not
 * (after every turn of an SDK thread, and at the deadline: {@link #afterTurn()}), as {@code UnitRunner}'s handlers do
 * by polling {@code leaseValid()}.
 *
 * <p>Two holes of the last safety pass lived in the SDK's glue; the simulator re-expresses them from outside, through
 * the SDK's public face and the store link, since their fixes are in the real code now ({@link Hole}):
 * {@link Hole#CANCEL_AFTER_FENCE} deregisters the fenced session when {@code cancel()} starts, and
 * {@link Hole#IN_DOUBT_AFTER_FENCE} releases the units in doubt that the store still gives the fenced session (what
 * the unfixed {@code settleInDoubt} did).
 *
 * <p>Not thread-safe: used by whoever holds the simulator's turn.
 */
final class SimProcess implements Network.Subscriber, Fibers.Watcher {

  /** Where the process is in its life. */
  enum Phase {
    /** {@code start()} runs: registering, waiting out a conflict. */
    STARTING,
    /** Started. */
    RUNNING,
    /** {@code cancel()} runs. */
    CANCELLING,
    /** Cancelled: the process exited. */
    LEFT,
    /** Killed (kill -9). */
    KILLED,
    /** {@code start()} failed: the id stayed live under another session, or the store refused. */
    FAILED
  }

  /** The pool (services list) of the simulation. */
  static final String POOL = "sim-pool";
  /** The distribution table of the simulation. */
  static final String TABLE = "sim-table";

  private final Sim sim;
  private final Trace trace;
  private final Fibers fibers;
  private final SimStore store;
  private final String host;
  private final String id;
  private final String name;
  private final Hole hole;
  private final SimLink link;
  private final DividerBackend backend;
  private final SimApp app;
  private final Divider divider;
  private final Sim.Actor appActor;
  private Runnable onFenced = () -> { };

  private Phase phase = Phase.STARTING;
  private long pausedUntil = Long.MIN_VALUE;
  private long linkDownUntil = Long.MIN_VALUE;
  /** The lease validity seen after the last turn. */
  private boolean wasValid;
  /** {@code lastFencedAtMillis()} seen after the last turn. */
  private long fencedSeen;
  /** The check of the application's view of the deadline, if one is due. */
  private Sim.Event deadlineCheck;
  /** The session of the last claims sent. */
  private long claimSession;

  /**
   * @param host        the host of the member id ({@code host:1})
   * @param incarnation the process's number for this id (1 for the first)
   */
  SimProcess(Sim sim, Network net, SimStore store, Trace trace, Fibers fibers, Ledger ledger, SimConfig config,
      String host, int incarnation) {
    this.sim = sim;
    this.trace = trace;
    this.fibers = fibers;
    this.store = store;
    this.host = host;
    this.id = memberId(host);
    this.name = host + "#" + incarnation;
    this.hole = config.hole();
    this.link = new SimLink(sim, this, net, store, fibers, ledger, trace);
    this.backend = fibers.backend(this, name + "/");
    this.app = new SimApp(sim, trace, ledger, this, config);
    SimProcess self = this;
    this.appActor = new Sim.Actor() {
      @Override
      public boolean gone() {
        return self.gone();
      }

      @Override
      public long pausedUntil() {
        return Long.MIN_VALUE; // the application's handlers are not paused with the SDK (see the class comment)
      }
    };
    this.divider = Divider.builder(link).pool(POOL).distribution(TABLE).host(host).pingsOnAppServer(1)
        .leaseTtl(config.leaseTtl()).renewEvery(config.renewEvery()).fenceMargin(config.fenceMargin())
        .syncInterval(config.syncInterval()).maxConcurrentMoves(config.maxMoves()).claimBatch(config.maxMoves())
        .releaseHold(config.releaseHold()).shutdownGrace(config.shutdownGrace())
        // every round the sync interval allows (the SDK's default is 20 of them): more of the check in the mix
        .ownershipCheck(config.syncInterval())
        .listener(app).backend(backend).build();
    divider.pingServices(); // the pings are answered by "the application's server": nothing is bound
  }

  /** The member id of a process on {@code host}. */
  static String memberId(String host) {
    return host + ":1";
  }

  // ---- identity and the simulator's controls

  String id() {
    return id;
  }

  /** The host of the member id: the simulator's name for the member ({@code m3}). */
  String host() {
    return host;
  }

  /** A token or session relative to the store's time origin, for the trace. */
  long rel(long tokenOrSession) {
    return store.rel(tokenOrSession);
  }

  @Override
  public String name() {
    return name;
  }

  Phase phase() {
    return phase;
  }

  SimApp app() {
    return app;
  }

  /** The divider, for the application's calls (events of this process, on the kernel). */
  Divider divider() {
    return divider;
  }

  Sim.Actor appActor() {
    return appActor;
  }

  /** Called after every self-fence (the simulator may cancel the member then, as an {@code onLeaseLost} would). */
  void onFenced(Runnable onFenced) {
    this.onFenced = onFenced;
  }

  @Override
  public boolean gone() {
    return phase == Phase.KILLED || phase == Phase.FAILED;
  }

  @Override
  public long pausedUntil() {
    return pausedUntil;
  }

  @Override
  public boolean linkDown() {
    return sim.now() < linkDownUntil;
  }

  void pause(long nanos) {
    pausedUntil = Math.max(pausedUntil, sim.now() + nanos);
  }

  void cutLink(long nanos) {
    linkDownUntil = Math.max(linkDownUntil, sim.now() + nanos);
  }

  void healLink() {
    linkDownUntil = Long.MIN_VALUE;
  }

  /** kill -9: the threads are unwound, nothing of this process runs any more. */
  void kill() {
    phase = Phase.KILLED;
    trace.add(name, "killed");
    fibers.kill(this);
  }

  boolean leaseValid() {
    return divider.leaseValid();
  }

  /** The session while the lease is held; its value stands for the lease generation (0: none). */
  OptionalLong session() {
    return divider.session();
  }

  long generation() {
    return divider.session().orElse(0);
  }

  int affinity() {
    return divider.affinity();
  }

  // ---- the application's main thread

  /** {@code Divider.start()} on a thread of the process. */
  void start(Network net) {
    net.subscribe(this);
    trace.add(name, "starts");
    backend.start("main", () -> {
      try {
        divider.start();
        if (phase == Phase.STARTING) {
          phase = Phase.RUNNING;
        }
      } catch (IllegalStateException e) {
        phase = Phase.FAILED;
        trace.add(name, "start failed: " + e.getMessage());
        sim.after(0, null, () -> fibers.kill(this)); // the process exits
      }
    });
  }

  /** {@code Divider.cancel()} on a thread of the process (an {@code onLeaseLost} that shuts down, a deploy). */
  void cancel() {
    if (phase != Phase.RUNNING) {
      return;
    }
    phase = Phase.CANCELLING;
    trace.add(name, "cancel");
    backend.start("cancel", () -> {
      if (hole == Hole.CANCEL_AFTER_FENCE && fencedSeen != 0 && divider.session().isEmpty()
          && link.lastSession() != 0) {
        trace.add(name, "fenced: deregistering at once (hole 3)");
        try {
          link.deregister(id, link.lastSession());
        } catch (RuntimeException e) {
          trace.add(name, "deregistering failed: " + e);
        }
      }
      divider.cancel();
      phase = Phase.LEFT;
      trace.add(name, "left");
      app.onLeaseInvalid();
      sim.after(0, null, () -> fibers.kill(this)); // the process exits: a thread still waiting ends with it
    });
  }

  // ---- what the process's threads did (after every turn) and the application's view of the deadline

  @Override
  public void afterTurn() {
    long fencedAt = divider.lastFencedAtMillis();
    boolean valid = divider.leaseValid();
    if (fencedAt != fencedSeen) {
      fencedSeen = fencedAt;
      sim.count("fence");
      trace.add(name, "fenced: the lease is no longer trusted (since " + fencedAt + " ms)");
      app.onLeaseInvalid();
      onFenced.run();
    } else if (wasValid && !valid) {
      trace.add(name, "lease no longer valid");
      app.onLeaseInvalid();
    }
    if (valid && !wasValid) {
      trace.add(name, "registered s=" + store.rel(divider.session().orElse(0)));
    }
    wasValid = valid;
    if (valid) {
      armDeadline();
    }
  }

  /** A check at the lease deadline, for the application's handlers (not held back by a pause). */
  private void armDeadline() {
    long due = Sim.EPOCH + Math.max(divider.leaseDeadlineMillis() * 1_000_000L, sim.now() - Sim.EPOCH + 1_000_000L);
    if (deadlineCheck != null && !deadlineCheck.cancelled() && deadlineCheck.at() <= due) {
      return;
    }
    if (deadlineCheck != null) {
      deadlineCheck.cancel();
    }
    deadlineCheck = sim.at(due, appActor, () -> {
      deadlineCheck = null;
      if (divider.leaseValid()) {
        armDeadline();
      } else if (wasValid) {
        wasValid = false;
        trace.add(name, "deadline passed");
        app.onLeaseInvalid();
      }
    });
  }

  // ---- hooks of the store link

  /** The loop sends claims for {@code session}. */
  void claimsSent(long session) {
    claimSession = session;
  }

  /**
   * The loop got the owners of its claims in doubt. With {@link Hole#IN_DOUBT_AFTER_FENCE}, if the lease generation
   * changed since the claims (a fence), the units the store still gives that session are released, as the unfixed SDK
   * did (the fixed one drops the doubt).
   */
  void settlingDoubt(Map<String, UnitOwner> owners) {
    if (hole != Hole.IN_DOUBT_AFTER_FENCE || divider.session().orElse(0) == claimSession) {
      return;
    }
    owners.forEach((u, o) -> {
      if (o.member().equals(id) && o.session() == claimSession) {
        sim.count("release in doubt");
        trace.add(name, "release in doubt " + u + " after a fence (hole)");
        try {
          link.release(u, id, o.token(), Duration.ZERO);
        } catch (RuntimeException e) {
          trace.add(name, "release in doubt failed: " + e);
        }
      }
    });
  }

  // ---- announcements (events of this process)

  @Override
  public void onTable() {
    link.tableAnnounced();
  }

  @Override
  public void onRelease(String unit) {
    link.releaseAnnounced(unit);
  }

  @Override
  public String toString() {
    return name + "(" + phase + ", " + (divider.leaseValid() ? "valid" : "invalid") + ")";
  }
}
