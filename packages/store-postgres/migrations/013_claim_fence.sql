-- finish_check_record bills only while the check still holds its Idempotency-Key claim. A claim
-- whose lease ended by another host's clock (a clock more than the lease ahead, or this check stalled
-- that long) is taken over by that host's begin, which reserves a unit of its own, maybe in the next
-- month by its clock; the first check's reservation is still live by its own clock. Before, both
-- finishes committed their reservation (one key billed twice, in two months); the first one's result
-- was already not stored (its owner no longer matches). Now a finish given a key commits only when
-- its claim row was still its own (stored, or abandoned, in the same statement that locks the row):
-- otherwise the reservation is released, as for a result that is not billable, and the usage record
-- is not billable. A claim whose lease ended but that nobody took over is still its own, as before.
-- Claim and reservation are settled in one transaction under the claim's row lock, so a takeover
-- lands either before the finish (nothing billed, nothing stored) or after it (the begin finds the
-- stored result and replays it). The same signature and result as in 010, so hosts of the previous
-- version keep their statement, and finish_check (010's wrapper for older hosts) follows.
CREATE OR REPLACE FUNCTION finish_check_record(
  p_organization_id text, p_now timestamptz, p_slot_id text, p_reservation_id text, p_commit boolean,
  p_key text, p_owner text, p_store boolean, p_retain_until timestamptz,
  p_status integer, p_headers json, p_body text,
  p_day date, p_network text, p_overall_state text, p_error boolean, p_latency_ms integer,
  OUT billed boolean, OUT quota_live boolean, OUT quota_used integer, OUT quota_reserved integer, OUT stored boolean,
  OUT repeated boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_held integer := 0;
  v_count integer;
  v_bucket integer;
  v_commit boolean := p_commit;
BEGIN
  stored := false;
  billed := false;
  IF p_key IS NOT NULL THEN
    IF p_store THEN
      -- idempotency_complete's statement.
      UPDATE idempotency_records SET state = 'completed', owner = NULL, expires_at = p_retain_until,
        response_status = p_status, response_headers = p_headers, response_body = p_body
      WHERE organization_id = p_organization_id AND key = p_key AND state = 'in_progress' AND owner = p_owner;
    ELSE
      DELETE FROM idempotency_records
       WHERE organization_id = p_organization_id AND key = p_key AND state = 'in_progress' AND owner = p_owner;
    END IF;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    stored := p_store AND v_count > 0;
    v_held := v_held + v_count;
    -- The fence: a claim no longer this owner's (taken over) releases the reservation unbilled.
    v_commit := p_commit AND v_count > 0;
  END IF;
  IF p_reservation_id IS NOT NULL THEN
    -- quota_finalize's statement: a row only for a reservation that still existed (live or expired).
    WITH gone AS (
      DELETE FROM quota_reservations r WHERE r.id = p_reservation_id AND r.organization_id = p_organization_id
      RETURNING r.organization_id, r.period, r.expires_at > p_now AS live),
    moved AS (
      UPDATE quota_counters q SET used = q.used + CASE WHEN gone.live AND v_commit THEN 1 ELSE 0 END,
        reserved = q.reserved - 1
        FROM gone WHERE q.organization_id = gone.organization_id AND q.period = gone.period
      RETURNING q.used, q.reserved, gone.live, gone.period)
    SELECT m.live, m.used, m.reserved - (SELECT count(*) FROM quota_reservations r
             WHERE r.organization_id = p_organization_id AND r.period = m.period AND r.expires_at <= p_now
               AND r.id <> p_reservation_id)::integer
      INTO quota_live, quota_used, quota_reserved
      FROM moved m;
    billed := COALESCE(quota_live, false) AND v_commit;
    v_held := v_held + (quota_live IS NOT NULL)::integer;
  END IF;
  IF p_slot_id IS NOT NULL THEN
    DELETE FROM concurrency_slots s WHERE s.organization_id = p_organization_id AND s.slot_id = p_slot_id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_held := v_held + v_count;
  END IF;
  repeated := (p_key IS NOT NULL OR p_reservation_id IS NOT NULL OR p_slot_id IS NOT NULL) AND v_held = 0;
  IF p_day IS NOT NULL AND NOT repeated THEN
    -- usage_record's update; its insert path for the day's first check.
    v_bucket := usage_latency_bucket(p_latency_ms);
    UPDATE usage_days AS d SET
      requests = d.requests + 1,
      billable = d.billable + billed::integer,
      limited_data = d.limited_data + COALESCE(p_overall_state = 'LIMITED_DATA', false)::integer,
      errors = d.errors + p_error::integer,
      latency_sum_ms = d.latency_sum_ms + p_latency_ms,
      latency_count = d.latency_count + 1,
      by_network = CASE WHEN p_network IS NULL THEN d.by_network
        ELSE jsonb_set(d.by_network, ARRAY[p_network], to_jsonb(COALESCE((d.by_network ->> p_network)::integer, 0) + 1)) END,
      by_overall_state = CASE WHEN p_overall_state IS NULL THEN d.by_overall_state
        ELSE jsonb_set(d.by_overall_state, ARRAY[p_overall_state],
                       to_jsonb(COALESCE((d.by_overall_state ->> p_overall_state)::integer, 0) + 1)) END,
      latency_histogram[v_bucket] = d.latency_histogram[v_bucket] + 1
    WHERE d.organization_id = p_organization_id AND d.day = p_day;
    IF NOT FOUND THEN
      PERFORM usage_record(p_organization_id, p_day, p_network, p_overall_state, billed, p_error, p_latency_ms);
    END IF;
  END IF;
END;
$$;
