-- Usage as one row per organization and UTC day instead of one row per check: GET /v1/usage
-- reads at most 90 rows whatever the traffic, and the portal's statistics read the same buckets.
-- The existing per-check rows are folded into their days, then dropped.

-- Lower bounds (ms) of the latency histogram's buckets; the same list as the core's
-- LATENCY_BUCKET_BOUNDS_MS (a test compares them). Bucket i (1-based) counts [bounds[i], bounds[i+1]).
CREATE FUNCTION usage_latency_bounds() RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY[0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300,
               400, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10000, 12000,
               15000, 20000]
$$;

CREATE FUNCTION usage_latency_bucket(p_latency_ms integer) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT width_bucket(GREATEST(p_latency_ms, 0), usage_latency_bounds())
$$;

CREATE TABLE usage_days (
  organization_id   text    NOT NULL,
  day               date    NOT NULL,
  requests          integer NOT NULL,
  billable          integer NOT NULL,
  limited_data      integer NOT NULL,
  errors            integer NOT NULL,
  latency_sum_ms    bigint  NOT NULL,
  latency_count     integer NOT NULL,
  by_network        jsonb   NOT NULL,
  by_overall_state  jsonb   NOT NULL,
  latency_histogram integer[] NOT NULL,
  PRIMARY KEY (organization_id, day)
);
-- The retention sweep deletes the oldest days first.
CREATE INDEX usage_days_day ON usage_days (day);

-- Counts one check into its organization's day. PL/pgSQL rather than SQL: its plan is cached per
-- connection (a non-inlined SQL function is planned again on every call).
CREATE FUNCTION usage_record(
  p_organization_id text,
  p_day             date,
  p_network         text,
  p_overall_state   text,
  p_billable        boolean,
  p_error           boolean,
  p_latency_ms      integer
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_days AS d (organization_id, day, requests, billable, limited_data, errors, latency_sum_ms,
                               latency_count, by_network, by_overall_state, latency_histogram)
  VALUES (p_organization_id, p_day, 1, p_billable::integer, COALESCE(p_overall_state = 'LIMITED_DATA', false)::integer,
          p_error::integer, p_latency_ms, 1,
          CASE WHEN p_network IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(p_network, 1) END,
          CASE WHEN p_overall_state IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(p_overall_state, 1) END,
          (SELECT array_agg((b = usage_latency_bucket(p_latency_ms))::integer ORDER BY b)
             FROM generate_series(1, cardinality(usage_latency_bounds())) b))
  ON CONFLICT (organization_id, day) DO UPDATE SET
    requests = d.requests + 1,
    billable = d.billable + EXCLUDED.billable,
    limited_data = d.limited_data + EXCLUDED.limited_data,
    errors = d.errors + EXCLUDED.errors,
    latency_sum_ms = d.latency_sum_ms + EXCLUDED.latency_sum_ms,
    latency_count = d.latency_count + 1,
    by_network = CASE WHEN p_network IS NULL THEN d.by_network
      ELSE jsonb_set(d.by_network, ARRAY[p_network], to_jsonb(COALESCE((d.by_network ->> p_network)::integer, 0) + 1)) END,
    by_overall_state = CASE WHEN p_overall_state IS NULL THEN d.by_overall_state
      ELSE jsonb_set(d.by_overall_state, ARRAY[p_overall_state],
                     to_jsonb(COALESCE((d.by_overall_state ->> p_overall_state)::integer, 0) + 1)) END,
    latency_histogram[usage_latency_bucket(p_latency_ms)] =
      d.latency_histogram[usage_latency_bucket(p_latency_ms)] + 1;
END;
$$;

-- The per-check rows of the previous schema, folded into their UTC days. Hosts of the previous version
-- still running wait for the migration's commit and then fail loudly (the table is gone, their logs say
-- so); without the lock a row they committed after the fold's snapshot would vanish with the table.
LOCK TABLE usage_records IN SHARE ROW EXCLUSIVE MODE;
WITH r AS (
  SELECT organization_id, (at AT TIME ZONE 'UTC')::date AS day, network, overall_state, billable, latency_ms,
         error_code, usage_latency_bucket(latency_ms) AS bucket
    FROM usage_records),
totals AS (
  SELECT organization_id, day, count(*) AS requests, count(*) FILTER (WHERE billable) AS billable,
         count(*) FILTER (WHERE overall_state = 'LIMITED_DATA') AS limited_data,
         count(*) FILTER (WHERE error_code IS NOT NULL) AS errors, sum(latency_ms) AS latency_sum_ms
    FROM r GROUP BY organization_id, day),
networks AS (
  SELECT organization_id, day, jsonb_object_agg(network, n) AS counts
    FROM (SELECT organization_id, day, network, count(*) AS n FROM r WHERE network IS NOT NULL
           GROUP BY organization_id, day, network) x
   GROUP BY organization_id, day),
states AS (
  SELECT organization_id, day, jsonb_object_agg(overall_state, n) AS counts
    FROM (SELECT organization_id, day, overall_state, count(*) AS n FROM r WHERE overall_state IS NOT NULL
           GROUP BY organization_id, day, overall_state) x
   GROUP BY organization_id, day),
buckets AS (
  SELECT organization_id, day, bucket, count(*) AS n FROM r GROUP BY organization_id, day, bucket),
histograms AS (
  SELECT t.organization_id, t.day, array_agg(COALESCE(b.n, 0)::integer ORDER BY i) AS histogram
    FROM totals t
   CROSS JOIN generate_series(1, cardinality(usage_latency_bounds())) i
    LEFT JOIN buckets b ON b.organization_id = t.organization_id AND b.day = t.day AND b.bucket = i
   GROUP BY t.organization_id, t.day)
INSERT INTO usage_days (organization_id, day, requests, billable, limited_data, errors, latency_sum_ms, latency_count,
                        by_network, by_overall_state, latency_histogram)
SELECT t.organization_id, t.day, t.requests, t.billable, t.limited_data, t.errors, t.latency_sum_ms, t.requests,
       COALESCE(n.counts, '{}'::jsonb), COALESCE(s.counts, '{}'::jsonb), h.histogram
  FROM totals t
  JOIN histograms h USING (organization_id, day)
  LEFT JOIN networks n USING (organization_id, day)
  LEFT JOIN states s USING (organization_id, day);

DROP TABLE usage_records;
