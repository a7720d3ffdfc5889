-- The sweep deletes invitations that expired before they were accepted (members without a password):
-- this index finds them without reading every member.
CREATE INDEX portal_members_invitation_expiry ON portal_members (invitation_expires_at) WHERE password_hash IS NULL;
