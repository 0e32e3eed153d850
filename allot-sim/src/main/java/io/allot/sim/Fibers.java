package io.allot.sim;

import io.allot.worker.DividerBackend;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The SDK's real threads, run one at a time on the {@link Sim}'s virtual clock: OkHttp's {@code TaskFaker} idea for
 * a {@link DividerBackend}. Every thread a divider starts is a real thread (a <em>fiber</em> here) that runs only when
 * the kernel (the thread running {@link Sim#step()}) hands it the turn, and hands it back when it waits: on a
 * {@link Condition} of a lock made here (with or without a timeout), on such a lock held by another fiber, on a
 * {@link DividerBackend.Strand#join}, or on a store call ({@link #await(Call)}). A fiber's resumption is an event of
 * its process's {@link Sim.Actor} (held back while the process is paused, dropped once it is gone), so the virtual
 * clock moves only while every fiber waits, and the order of everything is the order of the kernel's queue: a run is
 * still a function of its seed.
 *
 * <p>A killed process's fibers are unwound ({@link #kill}): resumed with {@link Killed} thrown from their wait, so
 * their threads end; at the end of a run every fiber left is unwound the same way ({@link #close()}).
 *
 * <p>Thread-safety: the turn ({@code turn}, volatile) orders everything; all other state is touched only by whoever
 * holds the turn (the kernel or one fiber), each handoff being a volatile write and read.
 */
final class Fibers implements AutoCloseable {
  /** Spins before a waiting thread parks (the handoff is usually quicker than a park). */
  private static final int SPINS = Integer.getInteger("allot.sim.spins", 1_000);
  /** The kernel's token as a lock holder (an event, whichever thread runs it). */
  private static final Object KERNEL = new Object();

  /** Thrown from a killed fiber's wait: unwinds its stack (an Error, so that the SDK's catch blocks let it pass). */
  static final class Killed extends Error {
    Killed() {
      super("the process was killed", null, false, false);
    }
  }

  private enum Wake { NONE, SIGNAL, TIMEOUT, INTERRUPT }

  /** An actor told after each turn of one of its fibers (a process watching its divider's state). */
  interface Watcher {
    void afterTurn();
  }

  private final Sim sim;
  /** The driving thread's token in the turn (the thread that called {@link #drive}). */
  private final Object main = new Object();
  private final Thread mainThread;
  /** Who holds the turn: {@link #main} or a {@link Fiber}. */
  private volatile Object turn;
  /** Every fiber not yet ended, in start order. */
  private final List<Fiber> live = new ArrayList<>();
  /** The first unexpected throwable of a fiber (the run fails with it). */
  private Throwable crash;
  /** One event and the checks; false: the drive is over. */
  private BooleanSupplier stepper;
  private boolean stopped;
  private RuntimeException failure;
  /** Who gets the turn back when a fiber that is being killed has unwound. */
  private Object returnTo;

  Fibers(Sim sim) {
    this.sim = sim;
    this.mainThread = Thread.currentThread();
    this.turn = main;
  }

  /** A backend whose threads are fibers of {@code actor} (a member process). */
  DividerBackend backend(Sim.Actor actor, String prefix) {
    return new Backend(actor, prefix);
  }

  /**
   * Runs the simulation from the driving thread: {@code stepper} runs one event and the checks, and says whether to
   * go on. Whoever holds the turn runs it (the driving thread, or a fiber that waits: handing the turn to the kernel
   * and back would cost two thread switches per event), so the thread that resumes a fiber is the one that found its
   * event, and a fiber whose own event comes next (the answer to its store call) goes on without any switch.
   * Throws what a step threw.
   */
  void drive(BooleanSupplier stepper) {
    if (Thread.currentThread() != mainThread) {
      throw new IllegalStateException("drive() runs on the thread that made the simulator");
    }
    this.stepper = stepper;
    this.stopped = false;
    kernelLoop(main);
    RuntimeException f = failure;
    failure = null;
    if (f != null) {
      throw f;
    }
  }

  /** Throws if a fiber failed with an unexpected throwable (an SDK bug, or an assertion of the SDK). */
  void check() {
    if (crash != null) {
      Throwable c = crash;
      throw new IllegalStateException("an SDK thread failed: " + c, c);
    }
  }

  /** Unwinds every fiber of {@code actor} (a killed process): their threads end. From an event. */
  void kill(Sim.Actor actor) {
    for (Fiber f : List.copyOf(live)) {
      if (f.actor == actor) {
        unwind(f);
      }
    }
  }

  /** Unwinds every fiber left (the driving thread, after the run). */
  @Override
  public void close() {
    for (Fiber f : List.copyOf(live)) {
      unwind(f);
    }
  }

  private void unwind(Fiber f) {
    if (f.done) {
      return;
    }
    f.killed = true;
    Object me = participant();
    if (me == f) {
      return; // a kill from an event that this very fiber's thread runs: it unwinds when the event is over
    }
    returnTo = me;
    f.resume = true;
    handTo(f);
  }

  /** A store call in flight: the fiber waits for its answer. */
  static final class Call {
    private Fiber fiber;
    private boolean answered;
    Object value;
    RuntimeException error;
  }

  /** Parks the current fiber until {@link #answer} (which the caller arranges). Fiber only. */
  void await(Call call) {
    Fiber f = self("a store call");
    if (call.answered) {
      return;
    }
    call.fiber = f;
    f.waitingOn = call;
    park(f);
  }

  /** The answer to {@code call} came: its fiber goes on now (the caller is an event of the fiber's actor). */
  void answer(Call call, Object value, RuntimeException error) {
    call.answered = true;
    call.value = value;
    call.error = error;
    Fiber f = call.fiber;
    if (f != null && f.waitingOn == call) {
      f.waitingOn = null;
      resume(f);
    }
  }

  // ---- the turn

  /** Who runs now: the driving thread, or the fiber whose thread this is. */
  private Object participant() {
    Thread t = Thread.currentThread();
    return t instanceof FiberThread ft && ft.fiber.owner == this ? ft.fiber : main;
  }

  /** From an event: {@code f} goes on (at once if the event runs on its own thread, when the event is over). */
  private void resume(Fiber f) {
    if (f.done) {
      return;
    }
    f.resume = true;
    if (participant() != f) {
      handTo(f);
    }
  }

  /**
   * Hands the turn to {@code to} and waits until it comes back to this thread (its own resumption, the end of a fiber
   * it killed, or the end of the drive for the driving thread).
   */
  private void handTo(Object to) {
    Object me = participant();
    turn = to;
    LockSupport.unpark(to == main ? mainThread : ((Fiber) to).thread);
    awaitTurn(me);
    if (me instanceof Fiber f && f.killed && !f.done) {
      throw new Killed();
    }
  }

  /**
   * Runs events until {@code me} is resumed (a fiber) or the drive is over (then the driving thread gets the turn).
   * While it runs events, the fiber's thread stands for the kernel ({@code inKernel}).
   */
  private void kernelLoop(Object me) {
    Fiber f = me instanceof Fiber x ? x : null;
    while (true) {
      if (f != null) {
        if (f.killed && !f.done) {
          throw new Killed();
        }
        if (f.resume) {
          f.resume = false;
          return;
        }
      }
      if (stopped) {
        if (f == null) {
          return;
        }
        handTo(main);
        continue;
      }
      if (f != null) {
        f.inKernel = true;
      }
      try {
        if (!stepper.getAsBoolean()) {
          stopped = true;
        }
      } catch (Killed e) {
        throw e;
      } catch (RuntimeException | Error e) {
        if (failure == null) {
          failure = e instanceof RuntimeException r ? r : new IllegalStateException("an event failed: " + e, e);
        }
        stopped = true;
      } finally {
        if (f != null) {
          f.inKernel = false;
        }
      }
    }
  }

  /** The current fiber waits (its state says for what): it runs the kernel until it is resumed. */
  private void park(Fiber f) {
    if (Thread.interrupted()) {
      f.interrupted = true; // a real interrupt (the SDK re-asserting one): kept here, or park would not park
    }
    if (f.actor instanceof Watcher w) {
      w.afterTurn();
    }
    kernelLoop(f);
  }

  private void awaitTurn(Object me) {
    for (int i = 0; turn != me; i++) {
      if (i < SPINS) {
        Thread.onSpinWait();
      } else {
        LockSupport.park(this);
      }
    }
  }

  /** Wakes {@code f} from a condition, a lock queue or a join: an event of its actor, now. */
  private void wake(Fiber f, Wake why) {
    if (f.waitingOn == null || f.done) {
      return;
    }
    f.waitingOn = null;
    f.wake = why;
    if (f.timeout != null) {
      f.timeout.cancel();
      f.timeout = null;
    }
    sim.after(0, f.actor, () -> resume(f));
  }

  private Fiber self(String what) {
    Fiber f = current();
    if (f == null) {
      throw new IllegalStateException(what + " would block the simulator's kernel ("
          + Thread.currentThread().getName() + ")");
    }
    return f;
  }

  /** The current fiber in its own code, or null on the kernel (an event, whichever thread runs it). */
  private Fiber current() {
    Thread t = Thread.currentThread();
    return t instanceof FiberThread ft && ft.fiber.owner == this && !ft.fiber.inKernel ? ft.fiber : null;
  }

  // ---- fibers

  private final class Fiber implements DividerBackend.Strand {
    final Fibers owner = Fibers.this;
    final Sim.Actor actor;
    final FiberThread thread;
    /** What it waits for: a condition, a lock, a fiber (join), a call; null while running or runnable. */
    Object waitingOn;
    Sim.Event timeout;
    Wake wake = Wake.NONE;
    boolean resume;
    boolean inKernel;
    boolean interrupted;
    boolean killed;
    boolean done;
    final List<Fiber> joiners = new ArrayList<>(1);

    Fiber(Sim.Actor actor, String name, Runnable body) {
      this.actor = actor;
      this.thread = new FiberThread(this, name, body);
    }

    @Override
    public boolean isCurrent() {
      return Thread.currentThread() == thread && !inKernel;
    }

    @Override
    public void interrupt() {
      interrupted = true;
      if (waitingOn instanceof Cond || waitingOn instanceof Fiber) {
        wake(this, Wake.INTERRUPT);
      }
    }

    @Override
    public boolean join(long nanos) throws InterruptedException {
      Fiber me = self("join");
      if (done) {
        return true;
      }
      takeInterrupt(me);
      joiners.add(me);
      me.waitingOn = this;
      me.timeout = sim.after(nanos, me.actor, () -> wake(me, Wake.TIMEOUT));
      park(me);
      joiners.remove(me);
      if (me.wake == Wake.INTERRUPT) {
        me.interrupted = false;
        throw new InterruptedException();
      }
      return done;
    }

    void body(Runnable body) {
      awaitTurn(this);
      resume = false;
      try {
        if (!killed) {
          body.run();
        }
      } catch (Killed k) {
        // unwound
      } catch (Throwable t) {
        if (crash == null) {
          crash = t;
        }
      }
      done = true;
      live.remove(this);
      for (Fiber j : List.copyOf(joiners)) {
        wake(j, Wake.SIGNAL);
      }
      if (actor instanceof Watcher w && !killed) {
        w.afterTurn();
      }
      // the turn goes back to whoever killed this fiber, else to the driving thread (which runs the next events)
      Object back = killed && returnTo != null ? returnTo : main;
      if (back == returnTo) {
        returnTo = null;
      }
      turn = back;
      LockSupport.unpark(back == main ? mainThread : ((Fiber) back).thread);
    }
  }

  private static final class FiberThread extends Thread {
    final Fiber fiber;

    FiberThread(Fiber fiber, String name, Runnable body) {
      super(() -> fiber.body(body), name);
      this.fiber = fiber;
      setDaemon(true);
    }
  }

  private static void takeInterrupt(Fiber f) throws InterruptedException {
    if (f.interrupted || Thread.interrupted()) {
      f.interrupted = false;
      throw new InterruptedException();
    }
  }

  // ---- locks and conditions

  /** A reentrant lock whose waits are fibers' waits. The kernel may take it when it is free, never wait for it. */
  private final class FiberLock implements Lock {
    /** The holding fiber, or {@link #KERNEL}; null when free. */
    private Object holder;
    private int holds;
    private final ArrayDeque<Fiber> queue = new ArrayDeque<>();

    @Override
    public void lock() {
      Fiber f = current();
      Object me = f == null ? KERNEL : f;
      if (holder == me) {
        holds++;
        return;
      }
      if (holder == null) {
        holder = me;
        holds = 1;
        return;
      }
      if (f == null) {
        throw new IllegalStateException("the kernel would wait for a lock held by a fiber");
      }
      queue.add(f);
      f.waitingOn = this;
      try {
        park(f); // unlock() hands the lock over before waking us
      } catch (Killed k) {
        queue.remove(f);
        if (holder == f) {
          release(f, true);
        }
        throw k;
      }
    }

    @Override
    public boolean tryLock() {
      Object me = current() == null ? KERNEL : current();
      if (holder == me) {
        holds++;
        return true;
      }
      if (holder == null) {
        holder = me;
        holds = 1;
        return true;
      }
      return false;
    }

    @Override
    public void unlock() {
      Fiber f = current();
      Object me = f == null ? KERNEL : f;
      if (holder != me) {
        if (f != null && f.killed) {
          return; // unwinding: a wait ended by the kill did not take the lock back
        }
        throw new IllegalMonitorStateException("not the holder");
      }
      release(me, false);
    }

    /** One hold less ({@code all}: every hold); the lock goes to the next waiter that still waits. */
    private int release(Object me, boolean all) {
      int had = holds;
      holds = all ? 0 : holds - 1;
      if (holds > 0) {
        return had;
      }
      holder = null;
      Fiber next;
      while ((next = queue.poll()) != null) {
        if (!next.done && !next.killed && next.waitingOn == this) {
          holder = next;
          holds = 1;
          wake(next, Wake.SIGNAL);
          break;
        }
      }
      return had;
    }

    /** Takes the lock back after a condition wait, with the holds it had. */
    private void reacquire(Fiber f, int had) {
      lock();
      holds = had;
    }

    @Override
    public Condition newCondition() {
      return new Cond(this);
    }

    @Override
    public void lockInterruptibly() {
      throw new UnsupportedOperationException("not used by the SDK");
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
      throw new UnsupportedOperationException("not used by the SDK");
    }
  }

  private final class Cond implements Condition {
    private final FiberLock lock;
    private final List<Fiber> waiters = new ArrayList<>(2);

    Cond(FiberLock lock) {
      this.lock = lock;
    }

    @Override
    public long awaitNanos(long nanos) throws InterruptedException {
      Fiber f = self("a condition wait");
      takeInterrupt(f);
      if (nanos <= 0) {
        return nanos;
      }
      long start = sim.now();
      waitHere(f, nanos);
      return nanos - (sim.now() - start);
    }

    @Override
    public void await() throws InterruptedException {
      Fiber f = self("a condition wait");
      takeInterrupt(f);
      waitHere(f, -1);
    }

    private void waitHere(Fiber f, long nanos) throws InterruptedException {
      if (lock.holder != f) {
        throw new IllegalMonitorStateException("a condition wait without its lock");
      }
      int had = lock.release(f, true);
      waiters.add(f);
      f.waitingOn = this;
      if (nanos >= 0) {
        f.timeout = sim.after(nanos, f.actor, () -> wake(f, Wake.TIMEOUT));
      }
      park(f);
      waiters.remove(f);
      lock.reacquire(f, had);
      if (f.wake == Wake.INTERRUPT) {
        f.interrupted = false;
        throw new InterruptedException();
      }
    }

    @Override
    public void signalAll() {
      for (Fiber f : List.copyOf(waiters)) {
        if (f.waitingOn == this) {
          wake(f, Wake.SIGNAL);
        }
      }
      waiters.clear();
    }

    @Override
    public void signal() {
      throw new UnsupportedOperationException("not used by the SDK");
    }

    @Override
    public void awaitUninterruptibly() {
      throw new UnsupportedOperationException("not used by the SDK");
    }

    @Override
    public boolean await(long time, TimeUnit unit) {
      throw new UnsupportedOperationException("not used by the SDK");
    }

    @Override
    public boolean awaitUntil(java.util.Date deadline) {
      throw new UnsupportedOperationException("not used by the SDK");
    }
  }

  // ---- the backend of one process

  private final class Backend implements DividerBackend {
    private final Sim.Actor actor;
    private final String prefix;

    Backend(Sim.Actor actor, String prefix) {
      this.actor = actor;
      this.prefix = prefix;
    }

    @Override
    public long nanoTime() {
      return sim.now();
    }

    @Override
    public long currentTimeMillis() {
      return (sim.now() - Sim.EPOCH) / 1_000_000L;
    }

    @Override
    public Lock newLock() {
      return new FiberLock();
    }

    @Override
    public Strand start(String name, Runnable body) {
      Fiber f = new Fiber(actor, prefix + name, body);
      live.add(f);
      f.thread.start();
      f.waitingOn = f; // not yet run: woken below
      wake(f, Wake.SIGNAL);
      return f;
    }
  }
}
