package io.allot.store.events;

import java.util.Locale;

/** What an {@link RecordedEvent event} reports; on the wire by its lower-kebab {@link #wire() name}. */
public enum EventKind {
  /** A member's lease began (it registered or came back). */
  MEMBER_UP,
  /** A member's lease ended or it left. */
  MEMBER_DOWN,
  /** Another distributor took the lead. */
  LEADER_CHANGED,
  /** A new table epoch was published; the detail names the units moved. */
  TABLE_PUBLISHED,
  /** A member stopped its work by itself when it could not renew its lease. */
  SELF_FENCED,
  /** A claim of a unit was refused. */
  CLAIM_REFUSED,
  /** A long-running task changed status (detail {@code "Created -> Processing"}). */
  TASK_STATUS,
  /** A long-running task failed. */
  TASK_FAILED,
  /** A job was ignored by hand. */
  JOB_IGNORED,
  /** A job was retried by hand. */
  JOB_RETRIED,
  /** A write through the REST API. */
  API_WRITE,
  /** A write through the REST API that was refused. */
  API_REFUSED;

  /** The lower-kebab name, e.g. {@code member-up}. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The kind of a lower-kebab name.
   *
   * @throws IllegalArgumentException naming the kind and the known ones
   */
  public static EventKind fromWire(String wire) {
    for (EventKind k : values()) {
      if (k.wire().equals(wire)) {
        return k;
      }
    }
    StringBuilder known = new StringBuilder();
    for (EventKind k : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(k.wire());
    }
    throw new IllegalArgumentException("kind: unknown event kind '" + wire + "' (known: " + known + ")");
  }
}
