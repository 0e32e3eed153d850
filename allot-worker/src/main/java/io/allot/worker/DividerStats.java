package io.allot.worker;

/**
 * Counters of one {@link Divider} since it was built (monotonic), for metrics and tests.
 *
 * @param registrations     successful {@code register} calls (1 + the re-registrations after a lease loss)
 * @param leaseLosses       times the member fenced itself ({@link StopReason#LEASE_LOST})
 * @param renewFailures     lease renewals that failed on the store (unreachable, timed out)
 * @param claims            successful claims (each one followed by a {@link UnitStart})
 * @param claimsRefused     claims the store refused (the unit still had a live owner); normal during a handoff
 * @param releases          units released in the store
 * @param storeErrors       reconciliation steps that failed on the store (retried on the next round)
 */
public record DividerStats(
    long registrations,
    long leaseLosses,
    long renewFailures,
    long claims,
    long claimsRefused,
    long releases,
    long storeErrors) {}
