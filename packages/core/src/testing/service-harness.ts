import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errAsync, okAsync, ResultAsync } from 'neverthrow';
import type { ChainFacts, ChainFactsProvider, ProviderContext } from '../chain/facts.js';
import type { RiskProviders } from '../risk/signals.js';
import type { SafetyStores } from '../stores/index.js';
import type { StoredResponse } from '../stores/idempotency.js';
import type { Entitlements } from '../stores/organizations.js';
import type { CoreHttpRequest, CoreHttpResponse } from '../runtime/http.js';
import type { SafetyService } from '../runtime/service.js';
import { validateCheckRequest } from '../validation/index.js';

/**
 * In-process providers and a seeded tenant for runtime unit tests and the overhead benchmark:
 * the chain answers fixed facts at once (no node involved), the risk providers answer clean.
 * Pipeline tests of real data use the fake node and fake vendors over HTTP instead.
 */
export const HARNESS_SENDER = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
export const HARNESS_RECIPIENT = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';

/** A finalized, verified TRX transfer of 1.5 TRX with 25 confirmations. */
export function confirmedTrxFacts(txHash: string, observedAt = new Date()): ChainFacts {
  return {
    txHash,
    state: 'confirmed',
    transactionType: 'TransferContract',
    category: 'trx_transfer',
    owner: HARNESS_SENDER,
    blockNumber: 60_000_000,
    blockTime: new Date(observedAt.getTime() - 120_000),
    confirmations: 25,
    finalized: true,
    verified: true,
    disagreements: [],
    missing: [],
    transfers: [
      {
        index: 0,
        assetType: 'trx',
        source: 'contract',
        sender: HARNESS_SENDER,
        recipient: HARNESS_RECIPIENT,
        tokenContract: null,
        tokenId: null,
        tokenSymbol: 'TRX',
        tokenName: 'Tronix',
        decimals: 6,
        rawAmount: 1_500_000n,
      },
    ],
    transfersTruncated: false,
    primaryTransfer: 0,
    counterparties: [],
    tokenDataAt: null,
    observedAt,
    headTime: new Date(observedAt.getTime() - 1_000),
  };
}

export interface InstantChain extends ChainFactsProvider {
  /** Number of calls so far. */
  readonly calls: number;
}

/**
 * A chain provider answering `facts(txHash)` (default: a confirmed TRX transfer), or
 * `unavailable` when `facts` returns null; `delayMs` waits (honoring the signal) first.
 */
export function instantChain(
  options: { facts?: (txHash: string) => ChainFacts | null; delayMs?: number } = {},
): InstantChain {
  let calls = 0;
  const facts = options.facts ?? ((txHash: string) => confirmedTrxFacts(txHash));
  return {
    get calls() {
      return calls;
    },
    getTransactionFacts(txHash: string, ctx: ProviderContext) {
      calls++;
      const answer = () => {
        const value = facts(txHash);
        return value ? okAsync(value) : errAsync({ kind: 'unavailable' as const, detail: 'configured to fail' });
      };
      if (!options.delayMs) return answer();
      const waited = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), options.delayMs);
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(false)), { once: true });
      });
      return ResultAsync.fromSafePromise(waited).andThen((finished) =>
        finished ? answer() : errAsync({ kind: 'aborted' as const }),
      );
    },
  };
}

/** Risk providers answering clean at once (no sanctions hit, low AML, official token). */
export function instantRisk(asOf = new Date()): RiskProviders & { readonly calls: number } {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    sanctions: {
      async screen() {
        calls++;
        return { status: 'answered', hits: [], asOf };
      },
    },
    aml: {
      supportsAsset: () => true,
      async assessAddress() {
        calls++;
        return { status: 'answered', level: 'low', exposures: [], asOf };
      },
    },
    tokens: {
      async assess() {
        calls++;
        return { status: 'answered', authenticity: 'official', asOf };
      },
    },
  };
}

export const DEFAULT_TEST_ENTITLEMENTS: Entitlements = {
  rateLimitPerMinute: 100_000,
  maxConcurrentRequests: 1_000,
  monthlyQuota: 1_000_000,
  enabledNetworks: ['tron'],
};

/** Seeds one active organization with custom entitlements and one key; returns both. */
export async function seedTenant(
  service: SafetyService,
  entitlements: Partial<Entitlements> = {},
  id = '6f1c2a4e-0000-4000-8000-000000000001',
): Promise<{ organizationId: string; apiKey: string }> {
  const organization = await service.admin.seed.upsertOrganization({
    id,
    name: 'Test organization',
    assignment: { entitlements: { ...DEFAULT_TEST_ENTITLEMENTS, ...entitlements } },
  });
  if (organization.isErr()) throw new Error(organization.error.message);
  const key = await service.admin.createApiKey({ kind: 'operator' }, id, 'test key');
  if (key.isErr()) throw new Error(key.error.message);
  return { organizationId: id, apiKey: key.value.key };
}

/** The JSON body of a check of `txHash`, as bytes. */
export function checkBody(txHash: string, expected: Record<string, string | null> = {}): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ tx_hash: txHash, network: 'tron', ...expected }));
}

/**
 * What the stores hold under Idempotency-Key `key` for a completed check of `txHash` (as any host's retry
 * would find it, the response as stored); null while it is not completed.
 */
export async function storedCheckResponse(
  stores: SafetyStores,
  organizationId: string,
  key: string,
  txHash: string,
): Promise<StoredResponse | null> {
  const { fingerprint } = validateCheckRequest(checkBody(txHash))._unsafeUnwrap();
  const now = new Date();
  const found = await stores.idempotency.begin(
    { organizationId, key },
    { fingerprint, owner: 'stored-response-probe', now, leaseExpiresAt: new Date(now.getTime() + 60_000) },
  );
  return found.kind === 'completed' ? found.response : null;
}

/** A server started by `listen(0, '127.0.0.1')`, once it listens: its URL and a close function. */
export async function listenOnLoopback(
  listen: (port: number, host: string) => Server,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A handler that answers `status` (422 when the adapter flagged the body as too large) with
 * `headers` and, as its body, what it received: an adapter test sees exactly what was passed on.
 */
export function echoHandler(
  status: number,
  headers: Record<string, string>,
): { handle(req: CoreHttpRequest): Promise<CoreHttpResponse> } {
  return {
    async handle(req) {
      return {
        status: req.bodyTooLarge ? 422 : status,
        headers,
        body: JSON.stringify({
          method: req.method,
          path: req.path,
          query: req.query,
          apiKey: req.headers['x-api-key'] ?? null,
          body: Buffer.from(req.body).toString('utf8'),
          size: req.body.byteLength,
          tooLarge: req.bodyTooLarge ?? false,
        }),
      };
    },
  };
}
