/**
 * The resource side of fencing. allot gives every owner of a unit a fencing token, larger for each new owner; a lease
 * cannot stop a paused owner from finishing a write after its lease ran out, but the resource can refuse the write
 * when it carries a token older than one it has already seen. {@link io.allot.fence.JdbcFence} does that for a SQL
 * database (PostgreSQL, MariaDB) inside the caller's transaction, {@link io.allot.fence.RedisFence} for Redis in one
 * script with the write; both throw {@link io.allot.fence.StaleTokenException} for a stale token.
 */
package io.allot.fence;
