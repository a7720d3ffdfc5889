-- Leaner step functions for begin_check and finish_check: the same signatures, statements, locks
-- and results, with less work per call (measured with pg_stat_statements, track = all).

-- Usage: the day's row exists for all but the first record of an organization's day, so it is
-- updated first. The upsert's values (a 42-bucket histogram built from generate_series) were
-- computed on every call before, even when the row existed. The first record of a day inserts it;
-- one that loses that race to another finds the row on its next pass and updates it.
CREATE OR REPLACE FUNCTION usage_record(
  p_organization_id text,
  p_day             date,
  p_network         text,
  p_overall_state   text,
  p_billable        boolean,
  p_error           boolean,
  p_latency_ms      integer
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_bucket integer := usage_latency_bucket(p_latency_ms);
BEGIN
  LOOP
    UPDATE usage_days AS d SET
      requests = d.requests + 1,
      billable = d.billable + p_billable::integer,
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
    IF FOUND THEN
      RETURN;
    END IF;
    INSERT INTO usage_days (organization_id, day, requests, billable, limited_data, errors, latency_sum_ms,
                            latency_count, by_network, by_overall_state, latency_histogram)
    VALUES (p_organization_id, p_day, 1, p_billable::integer,
            COALESCE(p_overall_state = 'LIMITED_DATA', false)::integer, p_error::integer, p_latency_ms, 1,
            CASE WHEN p_network IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(p_network, 1) END,
            CASE WHEN p_overall_state IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(p_overall_state, 1) END,
            (SELECT array_agg((b = v_bucket)::integer ORDER BY b)
               FROM generate_series(1, cardinality(usage_latency_bounds())) b))
    ON CONFLICT (organization_id, day) DO NOTHING;
    IF FOUND THEN
      RETURN;
    END IF;
  END LOOP;
END;
$$;

-- Reserve: as in 004, with the period's usage read by the statement quota_usage runs, in place:
-- a nested set-returning PL/pgSQL call costs more than the statement itself.
CREATE OR REPLACE FUNCTION quota_reserve(
  p_organization_id text, p_period text, p_limit integer, p_reservation_id text,
  p_expires_at timestamptz, p_now timestamptz
) RETURNS TABLE (granted boolean, used integer, reserved integer) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_granted boolean := false;
BEGIN
  -- Expired reservations go first (they count as released), so they never deny a live request.
  IF EXISTS (SELECT 1 FROM quota_reservations WHERE organization_id = p_organization_id AND period = p_period
                AND expires_at <= p_now) THEN
    PERFORM quota_reclaim(p_organization_id, p_period, p_now, 2147483647);
  END IF;
  IF NOT EXISTS (SELECT 1 FROM quota_reservations WHERE id = p_reservation_id) THEN
    INSERT INTO quota_counters AS q (organization_id, period, used, reserved)
    SELECT p_organization_id, p_period, 0, 1 WHERE p_limit >= 1
    ON CONFLICT (organization_id, period) DO UPDATE SET reserved = q.reserved + 1
    WHERE q.used + q.reserved < p_limit;
    IF FOUND THEN
      INSERT INTO quota_reservations (id, organization_id, period, expires_at)
      VALUES (p_reservation_id, p_organization_id, p_period, p_expires_at);
      v_granted := true;
    END IF;
  END IF;
  -- quota_usage's statement: live reserved units are the counter minus reservations already expired.
  RETURN QUERY SELECT v_granted, q.used, q.reserved - (SELECT count(*) FROM quota_reservations r
           WHERE r.organization_id = q.organization_id AND r.period = q.period AND r.expires_at <= p_now)::integer
    FROM quota_counters q WHERE q.organization_id = p_organization_id AND q.period = p_period;
  IF NOT FOUND THEN
    RETURN QUERY SELECT v_granted, 0, 0;
  END IF;
END;
$$;
