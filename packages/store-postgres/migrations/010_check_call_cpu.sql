-- Less server CPU per check (bench/scale's breakdown; pg_stat_statements with track = all and perf
-- on the backends): the same signatures, results, locks and lock order as 004/008/009.

-- Live slots of an organization are counted on every begin. Through the primary key that count
-- was a bitmap scan over every slot row the organization ever had until vacuum removed them (a
-- bitmap scan never marks dead index entries, so each count visited them all again in the heap:
-- 0.5 ms at 3,500 finished checks). This index answers it with an index-only range scan, whose
-- visits mark dead entries so the next count skips them.
CREATE INDEX concurrency_slots_live ON concurrency_slots (organization_id, expires_at);

-- begin_check_record: begin_check (004, 008) as one record with its steps' statements in place of
-- nested calls of the step functions (each nested set-returning PL/pgSQL call cost 20 to 60 µs
-- beside its statements; the step functions stay for the per-step store methods, with the same
-- statements). The host reads it as one json column (row_to_json): one field to describe and
-- decode instead of 24. With p_touch_key it also sets the API key's last use, which the host's
-- statement did in a data-modifying WITH on every call: now only when the key's row, read anyway,
-- says it is due.
CREATE FUNCTION begin_check_record(
  p_key_hash text, p_organization_id text, p_now timestamptz, p_window_start timestamptz,
  p_slot_id text, p_slot_expires_at timestamptz,
  p_network text, p_key text, p_fingerprint text, p_owner text, p_lease_expires_at timestamptz,
  p_period text, p_reservation_id text, p_reservation_expires_at timestamptz, p_touch_key boolean,
  OUT stage text,
  OUT id text, OUT name text, OUT status text, OUT plan_code text, OUT plan_version integer, OUT custom_entitlements jsonb,
  OUT created_at timestamptz, OUT updated_at timestamptz,
  OUT p_code text, OUT p_version integer, OUT p_name text, OUT p_rate_limit_per_minute integer, OUT p_max_concurrent_requests integer,
  OUT p_monthly_quota integer, OUT p_enabled_networks text[],
  OUT rate_count integer, OUT in_flight integer, OUT lease_expires_at timestamptz,
  OUT response_status integer, OUT response_headers json, OUT response_body text,
  OUT quota_used integer, OUT quota_reserved integer
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_org text;
  v_rate integer; v_slots integer; v_quota integer; v_networks text[];
  v_key_used timestamptz;
  v_key_found boolean := false;
  c record;
BEGIN
  <<steps>>
  BEGIN
    IF p_key_hash IS NOT NULL THEN
      SELECT k.organization_id, k.last_used_at INTO v_org, v_key_used
        FROM api_keys k WHERE k.hash = p_key_hash AND k.revoked_at IS NULL;
      v_key_found := FOUND;
    ELSE
      v_org := p_organization_id;
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
      stage := 'unauthenticated'; EXIT steps;
    END IF;
    IF status <> 'active' THEN
      stage := 'suspended'; EXIT steps;
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
      stage := 'no_entitlements'; EXIT steps;
    END IF;

    -- Rate: rate_hit's conditional upsert, tried as a plain update first (the window's row exists for
    -- all but an organization's first check after a quiet minute; an upsert checks the unique index
    -- for a conflict first). The update takes the same row lock and re-checks its condition on the
    -- latest version as the upsert does; a missing row or a refusal goes on to the upsert.
    UPDATE rate_windows AS w SET
      window_start = GREATEST(w.window_start, p_window_start),
      count = CASE WHEN p_window_start > w.window_start THEN 1 ELSE w.count + 1 END
    WHERE w.organization_id = v_org AND v_rate >= 1 AND (p_window_start > w.window_start OR w.count < v_rate)
    RETURNING w.count INTO rate_count;
    IF NOT FOUND THEN
      INSERT INTO rate_windows AS w (organization_id, window_start, count)
      SELECT v_org, p_window_start, 1 WHERE v_rate >= 1
      ON CONFLICT (organization_id) DO UPDATE SET
        window_start = GREATEST(w.window_start, EXCLUDED.window_start),
        count = CASE WHEN EXCLUDED.window_start > w.window_start THEN 1 ELSE w.count + 1 END
      WHERE EXCLUDED.window_start > w.window_start OR w.count < v_rate
      RETURNING w.count INTO rate_count;
    END IF;
    IF NOT FOUND THEN
      rate_count := COALESCE((SELECT w.count FROM rate_windows w
        WHERE w.organization_id = v_org AND w.window_start >= p_window_start), 0);
      stage := 'rate_limited'; EXIT steps;
    END IF;
    IF p_slot_id IS NULL THEN stage := 'admitted'; EXIT steps; END IF;

    -- Slot (acquire_concurrency_slot's statements).
    PERFORM pg_advisory_xact_lock(1936486260, hashtext(v_org));
    SELECT count(*) INTO in_flight FROM concurrency_slots s WHERE s.organization_id = v_org AND s.expires_at > p_now;
    IF in_flight >= v_slots THEN stage := 'slot_busy'; EXIT steps; END IF;
    INSERT INTO concurrency_slots (organization_id, slot_id, expires_at)
    VALUES (v_org, p_slot_id, p_slot_expires_at)
    ON CONFLICT (organization_id, slot_id) DO UPDATE SET expires_at = EXCLUDED.expires_at;
    in_flight := in_flight + 1;
    IF p_network IS NULL THEN stage := 'invalid'; EXIT steps; END IF;
    IF NOT (p_network = ANY (v_networks)) THEN stage := 'network_not_enabled'; EXIT steps; END IF;

    -- Idempotency claim (idempotency_begin's statements).
    IF p_key IS NOT NULL THEN
      INSERT INTO idempotency_records AS i (organization_id, key, fingerprint, state, owner, expires_at)
      VALUES (v_org, p_key, p_fingerprint, 'in_progress', p_owner, p_lease_expires_at)
      ON CONFLICT (organization_id, key) DO UPDATE SET
        fingerprint = EXCLUDED.fingerprint, state = 'in_progress', owner = EXCLUDED.owner,
        expires_at = EXCLUDED.expires_at, response_status = NULL, response_headers = NULL, response_body = NULL
      WHERE i.expires_at <= p_now;
      IF NOT FOUND THEN
        SELECT i.fingerprint, i.state, i.expires_at, i.response_status, i.response_headers, i.response_body INTO c
          FROM idempotency_records i WHERE i.organization_id = v_org AND i.key = p_key;
        IF c.fingerprint <> p_fingerprint THEN stage := 'conflict'; EXIT steps; END IF;
        DELETE FROM concurrency_slots s WHERE s.organization_id = v_org AND s.slot_id = p_slot_id;
        IF c.state = 'in_progress' THEN
          stage := 'in_progress';
          lease_expires_at := c.expires_at;
          EXIT steps;
        END IF;
        -- A stored result: replayed with the period's usage (read below), nothing reserved.
        stage := 'completed';
        response_status := c.response_status; response_headers := c.response_headers;
        response_body := c.response_body;
      END IF;
    END IF;

    -- Quota (quota_reserve's statements).
    IF stage IS NULL THEN
      stage := 'quota_exceeded';
      IF EXISTS (SELECT 1 FROM quota_reservations r WHERE r.organization_id = v_org AND r.period = p_period
                    AND r.expires_at <= p_now) THEN
        PERFORM quota_reclaim(v_org, p_period, p_now, 2147483647);
      END IF;
      IF NOT EXISTS (SELECT 1 FROM quota_reservations r WHERE r.id = p_reservation_id) THEN
        -- The counter's conditional upsert, a plain update first as for the rate window.
        UPDATE quota_counters AS q SET reserved = q.reserved + 1
         WHERE q.organization_id = v_org AND q.period = p_period AND q.used + q.reserved < v_quota;
        IF NOT FOUND THEN
          INSERT INTO quota_counters AS q (organization_id, period, used, reserved)
          SELECT v_org, p_period, 0, 1 WHERE v_quota >= 1
          ON CONFLICT (organization_id, period) DO UPDATE SET reserved = q.reserved + 1
          WHERE q.used + q.reserved < v_quota;
        END IF;
        IF FOUND THEN
          INSERT INTO quota_reservations (id, organization_id, period, expires_at)
          VALUES (p_reservation_id, v_org, p_period, p_reservation_expires_at);
          stage := 'started';
        END IF;
      END IF;
    END IF;
    -- The period's usage (quota_usage's statement).
    SELECT q.used, q.reserved - (SELECT count(*) FROM quota_reservations r
             WHERE r.organization_id = q.organization_id AND r.period = q.period AND r.expires_at <= p_now)::integer
      INTO quota_used, quota_reserved
      FROM quota_counters q WHERE q.organization_id = v_org AND q.period = p_period;
    IF NOT FOUND THEN quota_used := 0; quota_reserved := 0; END IF;
  END steps;
  -- The key's last use (migration 007), last in the locking order as the host's statement had it:
  -- set to p_now when at least a minute old. Read above, so most calls write nothing. A key row locked
  -- by a rotation or revocation is skipped, not waited for: this call holds the organization's rate
  -- window (and after admission its slot, claim and counter), so waiting would stall its other checks.
  IF p_touch_key AND v_key_found AND (v_key_used IS NULL OR v_key_used <= p_now - interval '1 minute') THEN
    UPDATE api_keys SET last_used_at = p_now
     WHERE hash = (SELECT k.hash FROM api_keys k
                    WHERE k.hash = p_key_hash AND k.revoked_at IS NULL
                      AND (k.last_used_at IS NULL OR k.last_used_at <= p_now - interval '1 minute')
                    FOR NO KEY UPDATE SKIP LOCKED);
  END IF;
END;
$$;

-- begin_check for hosts of the previous version (their statement touches the key itself).
CREATE OR REPLACE FUNCTION begin_check(
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
) LANGUAGE sql AS $$
  SELECT * FROM begin_check_record(p_key_hash, p_organization_id, p_now, p_window_start, p_slot_id, p_slot_expires_at,
    p_network, p_key, p_fingerprint, p_owner, p_lease_expires_at, p_period, p_reservation_id, p_reservation_expires_at,
    false)
$$;

-- finish_check_record: finish_check (009) as one record, with its steps' statements in place of
-- nested calls; usage_record is called only for the first check of an organization's day (its
-- insert path).
CREATE FUNCTION finish_check_record(
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
  END IF;
  IF p_reservation_id IS NOT NULL THEN
    -- quota_finalize's statement: a row only for a reservation that still existed (live or expired).
    WITH gone AS (
      DELETE FROM quota_reservations r WHERE r.id = p_reservation_id AND r.organization_id = p_organization_id
      RETURNING r.organization_id, r.period, r.expires_at > p_now AS live),
    moved AS (
      UPDATE quota_counters q SET used = q.used + CASE WHEN gone.live AND p_commit THEN 1 ELSE 0 END,
        reserved = q.reserved - 1
        FROM gone WHERE q.organization_id = gone.organization_id AND q.period = gone.period
      RETURNING q.used, q.reserved, gone.live, gone.period)
    SELECT m.live, m.used, m.reserved - (SELECT count(*) FROM quota_reservations r
             WHERE r.organization_id = p_organization_id AND r.period = m.period AND r.expires_at <= p_now
               AND r.id <> p_reservation_id)::integer
      INTO quota_live, quota_used, quota_reserved
      FROM moved m;
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

-- finish_check for hosts of the previous version.
CREATE OR REPLACE FUNCTION finish_check(
  p_organization_id text, p_now timestamptz, p_slot_id text, p_reservation_id text, p_commit boolean,
  p_key text, p_owner text, p_store boolean, p_retain_until timestamptz,
  p_status integer, p_headers json, p_body text,
  p_day date, p_network text, p_overall_state text, p_error boolean, p_latency_ms integer
) RETURNS TABLE (billed boolean, quota_live boolean, quota_used integer, quota_reserved integer, stored boolean,
                 repeated boolean)
LANGUAGE sql AS $$
  SELECT * FROM finish_check_record(p_organization_id, p_now, p_slot_id, p_reservation_id, p_commit, p_key, p_owner,
    p_store, p_retain_until, p_status, p_headers, p_body, p_day, p_network, p_overall_state, p_error, p_latency_ms)
$$;
