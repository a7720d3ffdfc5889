-- Taking a concurrency slot in one call, so the per-organization lock is held only while the
-- server runs it and commits, never across client round trips.
-- VOLATILE (the default): each query inside takes a fresh snapshot, so the count, which runs
-- after the advisory lock is granted, sees every slot committed before it. The lock is a
-- transaction lock: it is released when the calling transaction ends.
-- Lock key: class 1936486260 ("slot" in ASCII), object = hash of the organization id (a hash
-- collision only makes two organizations share a lock, never a count).
CREATE FUNCTION acquire_concurrency_slot(
  p_organization_id text,
  p_slot_id         text,
  p_limit           integer,
  p_now             timestamptz,
  p_expires_at      timestamptz
) RETURNS TABLE (ok boolean, in_flight integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  live integer;
BEGIN
  PERFORM pg_advisory_xact_lock(1936486260, hashtext(p_organization_id));
  SELECT count(*) INTO live FROM concurrency_slots
   WHERE organization_id = p_organization_id AND expires_at > p_now;
  IF live >= p_limit THEN
    RETURN QUERY SELECT false, live;
    RETURN;
  END IF;
  INSERT INTO concurrency_slots (organization_id, slot_id, expires_at)
  VALUES (p_organization_id, p_slot_id, p_expires_at)
  ON CONFLICT (organization_id, slot_id) DO UPDATE SET expires_at = EXCLUDED.expires_at;
  RETURN QUERY SELECT true, live + 1;
END;
$$;
