-- finish_check counts a check once: a finish retried after its answer was lost (the first call
-- committed, the connection dropped before its result arrived) finds none of what it names still
-- held (the claim stored or abandoned, the reservation and the slot deleted) and records no usage.
-- `repeated` says so. A call given nothing to release records as before. Hosts of the previous
-- version read the five columns they know.
DROP FUNCTION finish_check(text, timestamptz, text, text, boolean, text, text, boolean, timestamptz,
                           integer, json, text, date, text, text, boolean, integer);

CREATE FUNCTION finish_check(
  p_organization_id text, p_now timestamptz, p_slot_id text, p_reservation_id text, p_commit boolean,
  p_key text, p_owner text, p_store boolean, p_retain_until timestamptz,
  p_status integer, p_headers json, p_body text,
  p_day date, p_network text, p_overall_state text, p_error boolean, p_latency_ms integer
) RETURNS TABLE (billed boolean, quota_live boolean, quota_used integer, quota_reserved integer, stored boolean,
                 repeated boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_held integer := 0;
  v_count integer;
BEGIN
  stored := false;
  billed := false;
  IF p_key IS NOT NULL THEN
    IF p_store THEN
      stored := idempotency_complete(p_organization_id, p_key, p_owner, p_retain_until, p_status, p_headers, p_body);
      v_held := v_held + stored::integer;
    ELSE
      DELETE FROM idempotency_records
       WHERE organization_id = p_organization_id AND key = p_key AND state = 'in_progress' AND owner = p_owner;
      GET DIAGNOSTICS v_count = ROW_COUNT;
      v_held := v_held + v_count;
    END IF;
  END IF;
  IF p_reservation_id IS NOT NULL THEN
    -- quota_finalize answers a row only for a reservation that still existed (live or expired).
    SELECT f.live, f.used, f.reserved INTO quota_live, quota_used, quota_reserved
      FROM quota_finalize(p_organization_id, p_reservation_id, p_now, p_commit) f;
    billed := COALESCE(quota_live, false) AND p_commit;
    v_held := v_held + (quota_live IS NOT NULL)::integer;
  END IF;
  IF p_slot_id IS NOT NULL THEN
    DELETE FROM concurrency_slots s WHERE s.organization_id = p_organization_id AND s.slot_id = p_slot_id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_held := v_held + v_count;
  END IF;
  repeated := (p_key IS NOT NULL OR p_reservation_id IS NOT NULL OR p_slot_id IS NOT NULL) AND v_held = 0;
  IF p_day IS NOT NULL AND NOT repeated THEN
    PERFORM usage_record(p_organization_id, p_day, p_network, p_overall_state, billed, p_error, p_latency_ms);
  END IF;
  RETURN NEXT;
END;
$$;
