-- The developer portal: members (invited, then signing in with a password), sign-in sessions and
-- the failed sign-ins that throttle them. Only hashes are stored: scrypt for passwords, SHA-256 for
-- the random invitation and session tokens. No foreign keys, as elsewhere in this schema: the
-- core removes a member's sessions, and the portal treats a session without its member as ended.

-- An email is one member across all organizations (signing in names no organization).
CREATE TABLE portal_members (
  id                    text        PRIMARY KEY,
  organization_id       text        NOT NULL,
  email                 text        NOT NULL UNIQUE,
  role                  text        NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'billing', 'viewer')),
  password_hash         text,
  invitation_hash       text        UNIQUE,
  invitation_expires_at timestamptz,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  CHECK ((invitation_hash IS NULL) = (invitation_expires_at IS NULL))
);
CREATE INDEX portal_members_organization ON portal_members (organization_id, created_at);

-- The idle end never passes the absolute end, so the idle end alone says when a session is gone.
CREATE TABLE portal_sessions (
  token_hash      text        PRIMARY KEY,
  member_id       text        NOT NULL,
  organization_id text        NOT NULL,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  idle_expires_at timestamptz NOT NULL,
  CHECK (idle_expires_at <= expires_at)
);
CREATE INDEX portal_sessions_member ON portal_sessions (member_id);
CREATE INDEX portal_sessions_idle_expiry ON portal_sessions (idle_expires_at);

-- Fixed windows of failed sign-ins per key (an email, a client address).
CREATE TABLE portal_sign_in_failures (
  key          text        NOT NULL,
  window_start timestamptz NOT NULL,
  count        integer     NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX portal_sign_in_failures_expiry ON portal_sign_in_failures (expires_at);
