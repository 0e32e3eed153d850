-- allot PostgreSQL schema, version 3: claim() waits for an owner's renewal in flight.
--
-- Under READ COMMITTED, a plain read of the owner's member row sees the last committed lease. A renewal whose
-- UPDATE already qualified (the lease was live) but has not committed yet (a slow WAL flush) is invisible, so a
-- claim running just after the old expiry would take the unit although the renewal then succeeds and the owner
-- keeps running it. Locking the owner's row FOR SHARE (by key) makes the claim wait for that renewal and read the
-- lease it committed. Lock order
-- stays pool row, then member rows (as in register), so no deadlock: renewals and update_member lock only the
-- member row, deregister the member row and then the list.
CREATE OR REPLACE FUNCTION ${schema}.claim(p_pool text, p_unit text, p_member text, p_session bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_member  text;
  v_session bigint;
  v_token   bigint;
  v_until   timestamptz;
BEGIN
  PERFORM 1 FROM ${schema}.pools p WHERE p.pool = p_pool FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL; -- nobody ever registered in this pool
  END IF;
  IF NOT EXISTS (SELECT 1 FROM ${schema}.members m
                 WHERE m.pool = p_pool AND m.id = p_member AND m.session = p_session
                   AND m.lease_until > clock_timestamp()) THEN
    RETURN NULL;
  END IF;
  SELECT o.member, o.session, o.token INTO v_member, v_session, v_token
    FROM ${schema}.ownership o WHERE o.pool = p_pool AND o.unit = p_unit FOR UPDATE;
  IF FOUND THEN
    IF v_member = p_member AND v_session = p_session THEN
      RETURN v_token;
    END IF;
    -- lock by key only, then test the lease on the row as locked: a row whose snapshot version fails a WHERE
    -- condition would be skipped without waiting for the update in flight
    SELECT m.lease_until INTO v_until FROM ${schema}.members m
      WHERE m.pool = p_pool AND m.id = v_member AND m.session = v_session
      FOR SHARE;
    IF FOUND AND v_until > clock_timestamp() THEN
      RETURN NULL; -- owned by a live session
    END IF;
  END IF;
  UPDATE ${schema}.pools p SET last_counter = p.last_counter + 1 WHERE p.pool = p_pool
    RETURNING p.last_counter INTO v_token;
  INSERT INTO ${schema}.ownership AS o (pool, unit, member, session, token)
    VALUES (p_pool, p_unit, p_member, p_session, v_token)
    ON CONFLICT (pool, unit) DO UPDATE
      SET member = excluded.member, session = excluded.session, token = excluded.token;
  RETURN v_token;
END
$$;
