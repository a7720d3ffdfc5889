import { hashApiKey, type ApiKeyStore } from '@tron-safety/core';

/** What a log line says about the caller: never the key, only what identifies it. */
export interface KeyIdentity {
  organization_id: string;
  api_key_id: string;
  api_key_prefix: string;
}

const MAX_ENTRIES = 10_000;

/**
 * The organization and key behind an `X-API-Key` header, for log lines. A key's id and
 * organization never change, so answers are kept (bounded, oldest dropped first); only keys the
 * service accepted are looked up, so an unknown key costs no lookup here.
 */
export function keyIdentities(apiKeys: ApiKeyStore) {
  const known = new Map<string, KeyIdentity>();
  return async (header: string | string[] | undefined): Promise<KeyIdentity | null> => {
    if (typeof header !== 'string' || header.length === 0 || header.length > 256) return null;
    const hash = hashApiKey(header);
    const cached = known.get(hash);
    if (cached) return cached;
    const record = await apiKeys.findKeyByHash(hash).catch(() => null);
    if (!record) return null;
    const identity = { organization_id: record.organizationId, api_key_id: record.id, api_key_prefix: record.prefix };
    if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value!);
    known.set(hash, identity);
    return identity;
  };
}
