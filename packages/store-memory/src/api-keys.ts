import type {
  ApiKeyRecord,
  ApiKeyStore,
  KeyCapReached,
  KeyCaps,
  RotateKeyParams,
  RotateOutcome,
} from '@tron-safety/core';
import { countKeys, keyCapReached, LAST_USED_RESOLUTION_MS } from '@tron-safety/core/internal';
import { err, ok } from 'neverthrow';
import { frozenCopy } from './frozen.js';
import { byCreation } from './order.js';

export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #byId = new Map<string, ApiKeyRecord>();
  readonly #idByHash = new Map<string, string>();

  async insertKey(record: ApiKeyRecord, caps?: KeyCaps): Promise<boolean | KeyCapReached> {
    const capReached = caps && keyCapReached(countKeys(this.#keysOf(record.organizationId)), caps);
    if (capReached) return capReached;
    if (this.#byId.has(record.id) || this.#idByHash.has(record.hash)) return false;
    this.#put(record);
    return true;
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.byHash(hash);
  }

  /** `findKeyByHash` without a promise, for the check store's begin. */
  byHash(hash: string): ApiKeyRecord | null {
    const id = this.#idByHash.get(hash);
    return (id === undefined ? undefined : this.#byId.get(id)) ?? null;
  }

  /** The active key of `hash`, its use at `now` recorded (at most once a minute), or null; for the check store's begin. */
  use(hash: string, now: Date): ApiKeyRecord | null {
    const key = this.byHash(hash);
    if (!key || key.revokedAt !== null) return null;
    const last = key.lastUsedAt?.getTime() ?? -Infinity;
    return now.getTime() - last >= LAST_USED_RESOLUTION_MS ? this.#put({ ...key, lastUsedAt: now }) : key;
  }

  async listKeys(organizationId: string): Promise<ApiKeyRecord[]> {
    return this.#keysOf(organizationId).sort(byCreation);
  }

  async revokeKey(organizationId: string, keyId: string, now: Date): Promise<ApiKeyRecord | null> {
    const record = this.#byId.get(keyId);
    if (!record || record.organizationId !== organizationId) return null;
    return record.revokedAt ? record : this.#put({ ...record, revokedAt: now });
  }

  async rotateKey({ organizationId, keyId, replacement, now, caps }: RotateKeyParams): Promise<RotateOutcome> {
    const record = this.#byId.get(keyId);
    if (!record || record.organizationId !== organizationId) return err('not_found');
    if (caps && keyCapReached(countKeys(this.#keysOf(organizationId)), caps)) return err('kept_keys');
    if (record.revokedAt) return err('revoked');
    if (this.#byId.has(replacement.id) || this.#idByHash.has(replacement.hash)) {
      throw new Error('replacement key id or hash already exists');
    }
    const revoked = this.#put({ ...record, revokedAt: now, replacedBy: replacement.id });
    return ok({ revoked, created: this.#put(replacement) });
  }

  #keysOf(organizationId: string): ApiKeyRecord[] {
    return [...this.#byId.values()].filter((k) => k.organizationId === organizationId);
  }

  #put(record: ApiKeyRecord): ApiKeyRecord {
    const stored = frozenCopy(record);
    this.#byId.set(stored.id, stored);
    this.#idByHash.set(stored.hash, stored.id);
    return stored;
  }
}
