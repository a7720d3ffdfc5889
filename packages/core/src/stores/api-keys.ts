import type { Result } from 'neverthrow';
/**
 * API keys. Only a SHA-256 hash of a key is stored (keys are 256-bit random, so a fast hash is
 * enough); `prefix` is the non-secret start of the key shown in lists.
 */
export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  label: string;
  /** Lower-case hex SHA-256 of the full key. Unique across all keys. */
  hash: string;
  /** The first characters of the key (e.g. `tsk_live_AbCd1234`); never enough to use it. */
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** The key that replaced this one by rotation. */
  replacedBy: string | null;
  /**
   * When a request last authenticated with the key, to the minute: `CheckStore.begin` records it
   * as it authenticates (at most once a minute per key, so a busy key costs no write per check).
   */
  lastUsedAt: Date | null;
}

/** How often `begin` moves a key's `lastUsedAt` at most: a key used again within this keeps its time. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** The old key revoked (replaced by the new one) and the new one; or why nothing changed. */
export type RotateOutcome = Result<{ revoked: ApiKeyRecord; created: ApiKeyRecord }, 'not_found' | 'revoked'>;

export interface ApiKeyStore {
  /** Inserts a key; false when its id or hash already exists. */
  insertKey(record: ApiKeyRecord): Promise<boolean>;
  /** The key (revoked or not) whose hash is `hash`, or null. */
  findKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** Every key of the organization, oldest first (the same creation time: by id, in code units). */
  listKeys(organizationId: string): Promise<ApiKeyRecord[]>;
  /**
   * Marks the key revoked at `now` (idempotent: an already revoked key keeps its time).
   * Null when the organization has no such key.
   */
  revokeKey(organizationId: string, keyId: string, now: Date): Promise<ApiKeyRecord | null>;
  /**
   * Atomically (one transaction) revokes the active key `keyId` of the organization and inserts
   * `replacement`, linking the old key to it. Either both happen or neither.
   */
  rotateKey(organizationId: string, keyId: string, replacement: ApiKeyRecord, now: Date): Promise<RotateOutcome>;
}
