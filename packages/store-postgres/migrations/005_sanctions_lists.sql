-- The last good sanctions list, shared by every host: one header row (the singleton key keeps it one)
-- and its entries, replaced together in one transaction. A host polls the header (cheap) and reads
-- the entries only when the id changes.
CREATE TABLE sanctions_list (
  singleton      boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  id             uuid        NOT NULL,
  source         text        NOT NULL,
  format         text        NOT NULL CHECK (format IN ('sdn', 'sdn_advanced', 'plain')),
  published_at   timestamptz NOT NULL,
  confirmed_at   timestamptz NOT NULL,
  saved_at       timestamptz NOT NULL,
  address_count  integer     NOT NULL CHECK (address_count >= 0),
  etag           text,
  last_modified  text
);

CREATE TABLE sanctions_list_entries (
  list_id  uuid NOT NULL,
  address  text NOT NULL,
  tag      text NOT NULL,
  name     text,
  PRIMARY KEY (list_id, address)
);

-- The most recent failed refresh, for `tron-safety-admin sanctions status` (one row, replaced).
CREATE TABLE sanctions_list_failure (
  singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  at         timestamptz NOT NULL,
  reason     text        NOT NULL
);
