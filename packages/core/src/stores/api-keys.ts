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

/**
 * Caps on an organization's keys that an insert (or a rotation) checks in its own atomic step, so
 * requests sent at once cannot pass them by their number.
 */
export interface KeyCaps {
  /** Keys of the organization, revoked ones included, at which no key is added. */
  kept: number;
  /** Unrevoked keys of the organization at which no key is inserted (a rotation keeps the count: not checked). */
  active?: number;
}

/** The cap that refused a key (see `KeyCaps`): nothing changed. */
export type KeyCapReached = 'kept_keys' | 'active_keys';

/** An organization's keys: all of them (revoked ones are kept) and the unrevoked ones. */
export interface KeyCounts {
  kept: number;
  active: number;
}

export function countKeys(keys: readonly ApiKeyRecord[]): KeyCounts {
  let active = 0;
  for (const key of keys) if (key.revokedAt === null) active++;
  return { kept: keys.length, active };
}

/** The cap of `caps` an organization with these counts has reached, or null: the rule every store applies. */
export function keyCapReached(counts: KeyCounts, caps: KeyCaps): KeyCapReached | null {
  if (counts.kept >= caps.kept) return 'kept_keys';
  return caps.active !== undefined && counts.active >= caps.active ? 'active_keys' : null;
}

export interface RotateKeyParams {
  organizationId: string;
  keyId: string;
  replacement: ApiKeyRecord;
  now: Date;
  /** Only `kept` is checked: a rotation keeps the count of active keys. */
  caps?: Pick<KeyCaps, 'kept'>;
}

/** The old key revoked (replaced by the new one) and the new one; or why nothing changed. */
export type RotateOutcome = Result<
  { revoked: ApiKeyRecord; created: ApiKeyRecord },
  'not_found' | 'revoked' | 'kept_keys'
>;

export interface ApiKeyStore {
  /**
   * Inserts a key; false when its id or hash already exists. With `caps`, in the same atomic step:
   * the cap reached (`keyCapReached`, checked first) refuses it, so of concurrent inserts no more
   * than the caps allow succeed.
   */
  insertKey(record: ApiKeyRecord, caps?: KeyCaps): Promise<boolean | KeyCapReached>;
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
   * `replacement`, linking the old key to it. Either both happen or neither. With `caps`, a known
   * key of an organization at `caps.kept` keys is refused (`kept_keys`) in the same step, before
   * `revoked` is told.
   */
  rotateKey(params: RotateKeyParams): Promise<RotateOutcome>;
}
