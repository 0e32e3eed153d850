-- allot PostgreSQL schema, version 2: batched claims.

-- claim() for each unit, in one round trip and one transaction; the result has one element per unit, in order:
-- the fencing token, or null if refused. Every claim locks the pool row first, so batches cannot deadlock.
CREATE FUNCTION ${schema}.claim_all(p_pool text, p_units text[], p_member text, p_session bigint)
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  v_out  bigint[] := '{}';
  v_unit text;
BEGIN
  FOREACH v_unit IN ARRAY p_units LOOP
    v_out := array_append(v_out, ${schema}.claim(p_pool, v_unit, p_member, p_session));
  END LOOP;
  RETURN v_out;
END
$$;
