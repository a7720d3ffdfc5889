-- A check in two calls: begin_check and finish_check, one round trip each. Each step is a
-- function of its own, also called by the per-step methods of the stores, so a step has one
-- definition. All are PL/pgSQL, whose statement plans are cached per connection (a non-inlined
-- SQL function would be planned again on every call). Both functions are VOLATILE: every statement inside takes a fresh snapshot and
-- sees what other transactions committed before it, as separate statements did before.
--
-- Row-locking order (every writer takes locks in this order, so concurrent checks, finishes and
-- sweepers never deadlock): rate window → concurrency advisory lock → idempotency record →
-- quota reservations (in id order) → quota counter → usage day.

-- Rate: admit into the organization's window starting at p_window_start while under p_limit.
-- A newer window restarts at 1; a host whose clock lags counts into the newer window; denied
-- requests change nothing.
CREATE FUNCTION rate_hit(p_organization_id text, p_window_start timestamptz, p_limit integer)
RETURNS TABLE (allowed boolean, count integer) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_count integer;
BEGIN
  INSERT INTO rate_windows AS w (organization_id, window_start, count)
  SELECT p_organization_id, p_window_start, 1 WHERE p_limit >= 1
  ON CONFLICT (organization_id) DO UPDATE SET
    window_start = GREATEST(w.window_start, EXCLUDED.window_start),
    count = CASE WHEN EXCLUDED.window_start > w.window_start THEN 1 ELSE w.count + 1 END
  WHERE EXCLUDED.window_start > w.window_start OR w.count < p_limit
  RETURNING w.count INTO v_count;
  IF FOUND THEN
    RETURN QUERY SELECT true, v_count;
  ELSE
    RETURN QUERY SELECT false, COALESCE((SELECT w.count FROM rate_windows w
      WHERE w.organization_id = p_organization_id AND w.window_start >= p_window_start), 0);
  END IF;
END;
$$;

-- Idempotency claim: insert, or take over a record that is no longer live. Of any number of
-- concurrent callers exactly one gets the record; the others find the live record, which the
-- conflict has locked for them, so it cannot vanish between the claim and the read.
CREATE FUNCTION idempotency_begin(
  p_organization_id text, p_key text, p_fingerprint text, p_owner text,
  p_lease_expires_at timestamptz, p_now timestamptz
) RETURNS TABLE (kind text, lease_expires_at timestamptz, response_status integer, response_headers json,
                 response_body text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r record;
BEGIN
  INSERT INTO idempotency_records AS i (organization_id, key, fingerprint, state, owner, expires_at)
  VALUES (p_organization_id, p_key, p_fingerprint, 'in_progress', p_owner, p_lease_expires_at)
  ON CONFLICT (organization_id, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, state = 'in_progress', owner = EXCLUDED.owner,
    expires_at = EXCLUDED.expires_at, response_status = NULL, response_headers = NULL, response_body = NULL
  WHERE i.expires_at <= p_now;
  IF FOUND THEN
    RETURN QUERY SELECT 'started', NULL::timestamptz, NULL::integer, NULL::json, NULL::text;
    RETURN;
  END IF;
  SELECT i.fingerprint, i.state, i.expires_at, i.response_status, i.response_headers, i.response_body INTO r
    FROM idempotency_records i WHERE i.organization_id = p_organization_id AND i.key = p_key;
  IF r.fingerprint <> p_fingerprint THEN
    RETURN QUERY SELECT 'conflict', NULL::timestamptz, NULL::integer, NULL::json, NULL::text;
  ELSIF r.state = 'in_progress' THEN
    RETURN QUERY SELECT 'in_progress', r.expires_at, NULL::integer, NULL::json, NULL::text;
  ELSE
    RETURN QUERY SELECT 'completed', NULL::timestamptz, r.response_status, r.response_headers, r.response_body;
  END IF;
END;
$$;

-- Stores the response if p_owner still holds the in-progress record (even past its lease,
-- provided nobody took it over). Headers as json (key order kept) and the body as text.
CREATE FUNCTION idempotency_complete(
  p_organization_id text, p_key text, p_owner text, p_retain_until timestamptz,
  p_status integer, p_headers json, p_body text
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE idempotency_records SET state = 'completed', owner = NULL, expires_at = p_retain_until,
    response_status = p_status, response_headers = p_headers, response_body = p_body
  WHERE organization_id = p_organization_id AND key = p_key AND state = 'in_progress' AND owner = p_owner;
  RETURN FOUND;
END;
$$;

CREATE FUNCTION idempotency_abandon(p_organization_id text, p_key text, p_owner text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM idempotency_records
   WHERE organization_id = p_organization_id AND key = p_key AND state = 'in_progress' AND owner = p_owner;
END;
$$;

-- Live reserved units of a period: the counter minus reservations already expired but not yet
-- reclaimed.
CREATE FUNCTION quota_usage(p_organization_id text, p_period text, p_now timestamptz)
RETURNS TABLE (used integer, reserved integer) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT q.used, q.reserved - (SELECT count(*) FROM quota_reservations r
           WHERE r.organization_id = q.organization_id AND r.period = q.period AND r.expires_at <= p_now)::integer
    FROM quota_counters q WHERE q.organization_id = p_organization_id AND q.period = p_period;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 0, 0;
  END IF;
END;
$$;

-- Deletes up to p_limit of the period's reservations that expired at or before p_now and takes
-- them off the counter. Reservation rows are locked in id order, before the counter.
CREATE FUNCTION quota_reclaim(p_organization_id text, p_period text, p_now timestamptz, p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_reclaimed integer;
BEGIN
  WITH expired AS (
    DELETE FROM quota_reservations WHERE id IN (
      SELECT id FROM quota_reservations
       WHERE organization_id = p_organization_id AND period = p_period AND expires_at <= p_now
       ORDER BY id LIMIT p_limit FOR UPDATE)
    AND expires_at <= p_now
    RETURNING 1),
  -- Runs whether or not the query below reads it (a data-modifying WITH always completes).
  counted AS (
    UPDATE quota_counters SET reserved = reserved - (SELECT count(*) FROM expired)
     WHERE organization_id = p_organization_id AND period = p_period AND EXISTS (SELECT 1 FROM expired)
    RETURNING 1)
  SELECT count(*)::integer INTO v_reclaimed FROM expired;
  RETURN v_reclaimed;
END;
$$;

-- Reserves one unit if used + reserved < p_limit (live reservations only). The conditional upsert
-- of the counter is re-checked by PostgreSQL on the latest row version when callers race, so no
-- number of hosts can over-reserve; the reservation row is inserted only when the counter moved.
CREATE FUNCTION quota_reserve(
  p_organization_id text, p_period text, p_limit integer, p_reservation_id text,
  p_expires_at timestamptz, p_now timestamptz
) RETURNS TABLE (granted boolean, used integer, reserved integer) LANGUAGE plpgsql AS $$
#variable_conflict use_column
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
      RETURN QUERY SELECT true, u.used, u.reserved FROM quota_usage(p_organization_id, p_period, p_now) u;
      RETURN;
    END IF;
  END IF;
  RETURN QUERY SELECT false, u.used, u.reserved FROM quota_usage(p_organization_id, p_period, p_now) u;
END;
$$;

-- Deletes the reservation and moves its counter (reserved - 1, used + 1 for a live commit): a
-- second call finds no row, so a unit is never billed twice. live = false: expired or unknown.
CREATE FUNCTION quota_finalize(
  p_organization_id text, p_reservation_id text, p_now timestamptz, p_commit boolean
) RETURNS TABLE (live boolean, used integer, reserved integer) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY WITH gone AS (
    DELETE FROM quota_reservations WHERE id = p_reservation_id AND organization_id = p_organization_id
    RETURNING organization_id, period, expires_at > p_now AS live),
  moved AS (
    UPDATE quota_counters q SET used = q.used + CASE WHEN gone.live AND p_commit THEN 1 ELSE 0 END,
      reserved = q.reserved - 1
      FROM gone WHERE q.organization_id = gone.organization_id AND q.period = gone.period
    RETURNING q.used, q.reserved, gone.live, gone.period)
  SELECT m.live, m.used, m.reserved - (SELECT count(*) FROM quota_reservations r
           WHERE r.organization_id = p_organization_id AND r.period = m.period AND r.expires_at <= p_now
             AND r.id <> p_reservation_id)::integer
    FROM moved m;
END;
$$;

-- begin: authenticate (an active API key by its hash, or an organization id another entry point
-- authenticated) → organization active → entitlements (custom, else the plan version) → rate →
-- slot (when p_slot_id is given) → for a valid request (p_network given): network entitled →
-- idempotency claim (when p_key is given) → quota reserve. The first step that refuses ends it;
-- `stage` names it. A replay or an in-progress key gives the slot back before returning.
CREATE FUNCTION begin_check(
  p_key_hash text, p_organization_id text, p_now timestamptz, p_window_start timestamptz,
  p_slot_id text, p_slot_expires_at timestamptz,
  p_network text, p_key text, p_fingerprint text, p_owner text, p_lease_expires_at timestamptz,
  p_period text, p_reservation_id text, p_reservation_expires_at timestamptz
) RETURNS TABLE (
  stage text,
  id text, name text, status text, plan_code text, plan_version integer, custom_entitlements jsonb,
  created_at timestamptz, updated_at timestamptz,
  p_code text, p_version integer, p_name text, p_rate_limit_per_minute integer, p_max_concurrent_requests integer,
  p_monthly_quota integer, p_enabled_networks text[],
  rate_count integer, in_flight integer, lease_expires_at timestamptz,
  response_status integer, response_headers json, response_body text,
  quota_used integer, quota_reserved integer
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_org text := p_organization_id;
  v_rate integer; v_slots integer; v_quota integer; v_networks text[];
  v_ok boolean;
  c record;
BEGIN
  IF p_key_hash IS NOT NULL THEN
    SELECT k.organization_id INTO v_org FROM api_keys k WHERE k.hash = p_key_hash AND k.revoked_at IS NULL;
  END IF;
  SELECT o.id, o.name, o.status, o.plan_code, o.plan_version, o.custom_entitlements, o.created_at, o.updated_at,
         p.code, p.version, p.name AS pname, p.rate_limit_per_minute, p.max_concurrent_requests, p.monthly_quota,
         p.enabled_networks
    INTO id, name, status, plan_code, plan_version, custom_entitlements, created_at, updated_at,
         p_code, p_version, p_name, p_rate_limit_per_minute, p_max_concurrent_requests, p_monthly_quota,
         p_enabled_networks
    FROM organizations o LEFT JOIN plans p ON p.code = o.plan_code AND p.version = o.plan_version
   WHERE o.id = v_org;
  IF NOT FOUND OR v_org IS NULL THEN
    stage := 'unauthenticated'; RETURN NEXT; RETURN;
  END IF;
  IF status <> 'active' THEN
    stage := 'suspended'; RETURN NEXT; RETURN;
  END IF;
  IF custom_entitlements IS NOT NULL THEN
    v_rate := (custom_entitlements ->> 'rateLimitPerMinute')::integer;
    v_slots := (custom_entitlements ->> 'maxConcurrentRequests')::integer;
    v_quota := (custom_entitlements ->> 'monthlyQuota')::integer;
    v_networks := ARRAY(SELECT jsonb_array_elements_text(custom_entitlements -> 'enabledNetworks'));
  ELSIF p_code IS NOT NULL THEN
    v_rate := p_rate_limit_per_minute; v_slots := p_max_concurrent_requests; v_quota := p_monthly_quota;
    v_networks := p_enabled_networks;
  ELSE
    stage := 'no_entitlements'; RETURN NEXT; RETURN;
  END IF;

  SELECT h.allowed, h.count INTO v_ok, rate_count FROM rate_hit(v_org, p_window_start, v_rate) h;
  IF NOT v_ok THEN stage := 'rate_limited'; RETURN NEXT; RETURN; END IF;
  IF p_slot_id IS NULL THEN stage := 'admitted'; RETURN NEXT; RETURN; END IF;

  SELECT s.ok, s.in_flight INTO v_ok, in_flight
    FROM acquire_concurrency_slot(v_org, p_slot_id, v_slots, p_now, p_slot_expires_at) s;
  IF NOT v_ok THEN stage := 'slot_busy'; RETURN NEXT; RETURN; END IF;
  IF p_network IS NULL THEN stage := 'invalid'; RETURN NEXT; RETURN; END IF;
  IF NOT (p_network = ANY (v_networks)) THEN stage := 'network_not_enabled'; RETURN NEXT; RETURN; END IF;

  IF p_key IS NOT NULL THEN
    SELECT * INTO c FROM idempotency_begin(v_org, p_key, p_fingerprint, p_owner, p_lease_expires_at, p_now);
    IF c.kind = 'conflict' THEN stage := 'conflict'; RETURN NEXT; RETURN; END IF;
    IF c.kind IN ('in_progress', 'completed') THEN
      DELETE FROM concurrency_slots s WHERE s.organization_id = v_org AND s.slot_id = p_slot_id;
      stage := c.kind;
      lease_expires_at := c.lease_expires_at;
      response_status := c.response_status; response_headers := c.response_headers; response_body := c.response_body;
      IF c.kind = 'completed' THEN
        SELECT u.used, u.reserved INTO quota_used, quota_reserved FROM quota_usage(v_org, p_period, p_now) u;
      END IF;
      RETURN NEXT; RETURN;
    END IF;
  END IF;

  SELECT r.granted, r.used, r.reserved INTO v_ok, quota_used, quota_reserved
    FROM quota_reserve(v_org, p_period, v_quota, p_reservation_id, p_reservation_expires_at, p_now) r;
  stage := CASE WHEN v_ok THEN 'started' ELSE 'quota_exceeded' END;
  RETURN NEXT;
END;
$$;

-- finish: the idempotency claim (store the response, or abandon it when p_store is false) →
-- the reservation (commit or release) → the slot → the usage record (billable when this call
-- billed). Every part is optional (null ids skip it).
CREATE FUNCTION finish_check(
  p_organization_id text, p_now timestamptz, p_slot_id text, p_reservation_id text, p_commit boolean,
  p_key text, p_owner text, p_store boolean, p_retain_until timestamptz,
  p_status integer, p_headers json, p_body text,
  p_day date, p_network text, p_overall_state text, p_error boolean, p_latency_ms integer
) RETURNS TABLE (billed boolean, quota_live boolean, quota_used integer, quota_reserved integer, stored boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  stored := false;
  billed := false;
  IF p_key IS NOT NULL THEN
    IF p_store THEN
      stored := idempotency_complete(p_organization_id, p_key, p_owner, p_retain_until, p_status, p_headers, p_body);
    ELSE
      PERFORM idempotency_abandon(p_organization_id, p_key, p_owner);
    END IF;
  END IF;
  IF p_reservation_id IS NOT NULL THEN
    SELECT f.live, f.used, f.reserved INTO quota_live, quota_used, quota_reserved
      FROM quota_finalize(p_organization_id, p_reservation_id, p_now, p_commit) f;
    billed := COALESCE(quota_live, false) AND p_commit;
  END IF;
  IF p_slot_id IS NOT NULL THEN
    DELETE FROM concurrency_slots s WHERE s.organization_id = p_organization_id AND s.slot_id = p_slot_id;
  END IF;
  IF p_day IS NOT NULL THEN
    PERFORM usage_record(p_organization_id, p_day, p_network, p_overall_state, billed, p_error, p_latency_ms);
  END IF;
  RETURN NEXT;
END;
$$;
