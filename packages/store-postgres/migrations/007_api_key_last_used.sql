-- When a request last authenticated with each API key, for the portal's key list. The check store
-- writes it in the statement that calls begin_check (no extra round trip), at most once a minute per
-- key, so a busy key costs no write per check. It is the last lock begin's statement takes (after
-- begin_check's), and key rotation and revocation lock only api_keys rows: no new lock cycle.
-- Existing keys start as never used.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
