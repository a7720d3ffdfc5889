-- Every store of the safety service. Times are timestamptz (the runtime's clock, passed in by
-- the core); ids are text because the core decides their format.

CREATE TABLE plans (
  code                    text    NOT NULL,
  version                 integer NOT NULL,
  name                    text    NOT NULL,
  rate_limit_per_minute   integer NOT NULL,
  max_concurrent_requests integer NOT NULL,
  monthly_quota           integer NOT NULL,
  enabled_networks        text[]  NOT NULL,
  PRIMARY KEY (code, version)
);

-- An organization has either a plan version or custom entitlements. No foreign key to plans:
-- the core may assign a plan version before it is stored (getOrganization then has no plan).
CREATE TABLE organizations (
  id                  text        PRIMARY KEY,
  name                text        NOT NULL,
  status              text        NOT NULL CHECK (status IN ('active', 'suspended')),
  plan_code           text,
  plan_version        integer,
  custom_entitlements jsonb,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  CHECK ((plan_code IS NOT NULL AND plan_version IS NOT NULL AND custom_entitlements IS NULL)
      OR (plan_code IS NULL AND plan_version IS NULL AND custom_entitlements IS NOT NULL))
);

-- Only the SHA-256 of a key is stored.
CREATE TABLE api_keys (
  id              text        PRIMARY KEY,
  organization_id text        NOT NULL,
  label           text        NOT NULL,
  hash            text        NOT NULL UNIQUE,
  prefix          text        NOT NULL,
  created_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  replaced_by     text
);
CREATE INDEX api_keys_organization ON api_keys (organization_id, created_at);

-- One row per organization and Idempotency-Key. `expires_at` is the lease end while in
-- progress and the retention end once completed: the record is live while expires_at > now.
-- Headers are json (not jsonb) and the body text, so a replay is byte for byte what was stored.
CREATE TABLE idempotency_records (
  organization_id  text        NOT NULL,
  key              text        NOT NULL,
  fingerprint      text        NOT NULL,
  state            text        NOT NULL CHECK (state IN ('in_progress', 'completed')),
  owner            text,
  expires_at       timestamptz NOT NULL,
  response_status  integer,
  response_headers json,
  response_body    text,
  PRIMARY KEY (organization_id, key),
  CHECK ((state = 'in_progress' AND owner IS NOT NULL AND response_body IS NULL)
      OR (state = 'completed' AND owner IS NULL AND response_status IS NOT NULL
          AND response_headers IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);

-- Monthly quota: one counter row per organization and period ('YYYY-MM'). `reserved` counts
-- the reservation rows of the period that have not been deleted yet, expired ones included;
-- readers subtract the expired ones, and reserve/sweep delete them and decrement the counter.
CREATE TABLE quota_counters (
  organization_id text    NOT NULL,
  period          text    NOT NULL,
  used            integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  reserved        integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  PRIMARY KEY (organization_id, period)
);

CREATE TABLE quota_reservations (
  id              text        PRIMARY KEY,
  organization_id text        NOT NULL,
  period          text        NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX quota_reservations_period ON quota_reservations (organization_id, period, expires_at);
CREATE INDEX quota_reservations_expiry ON quota_reservations (expires_at);

-- Fixed one-minute rate windows: one row per organization, holding its latest window.
CREATE TABLE rate_windows (
  organization_id text        PRIMARY KEY,
  window_start    timestamptz NOT NULL,
  count           integer     NOT NULL
);
CREATE INDEX rate_windows_start ON rate_windows (window_start);

-- Concurrency slots: leases, counted under a per-organization advisory lock.
CREATE TABLE concurrency_slots (
  organization_id text        NOT NULL,
  slot_id         text        NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (organization_id, slot_id)
);
CREATE INDEX concurrency_slots_expiry ON concurrency_slots (expires_at);

-- One logical check each; no transaction hash, no provider detail.
CREATE TABLE usage_records (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id text        NOT NULL,
  at              timestamptz NOT NULL,
  network         text,
  overall_state   text,
  coverage        text,
  billable        boolean     NOT NULL,
  latency_ms      integer     NOT NULL,
  error_code      text
);
CREATE INDEX usage_records_organization_at ON usage_records (organization_id, at);
CREATE INDEX usage_records_at ON usage_records (at);
