-- A removed member leaves its email behind in the organization it was removed from, as a revoked key
-- stays a row: a host loading a seed file that still lists the member must not insert it again at its
-- next start (the core inserts a seed member only while no removal is recorded, under the
-- organization's member lock). The removed member itself is gone from portal_members, so it is in no
-- list, signs in nowhere, has no session, and its email is free for a new invitation, here or in
-- another organization. A table of its own rather than a column of portal_members: hosts of the
-- previous version, still running during a rolling upgrade, read every portal_members row as a member.
-- One row per organization and email ever removed (a repeated removal updates it): as few as removals.
-- Members removed before this migration were deleted without a trace, so they are not known here.
CREATE TABLE portal_member_removals (
  organization_id text        NOT NULL,
  email           text        NOT NULL,
  member_id       text        NOT NULL,
  removed_at      timestamptz NOT NULL,
  PRIMARY KEY (organization_id, email)
);
