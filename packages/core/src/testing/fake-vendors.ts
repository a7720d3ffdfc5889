import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Fake Chainalysis servers for tests and demos: the Address Screening (Entity) API v2 and the
 * free sanctions API, on real HTTP at 127.0.0.1, with per-address answers and fault injection.
 * Response shapes follow the reference notes (`shared/reference/risk-data.md` §2).
 */

export type FakeRiskLevel = 'Severe' | 'High' | 'Medium' | 'Low';

export interface FakeExposure {
  category: string;
  /** USD amount. */
  value: number;
  exposureType?: 'direct' | 'indirect';
  direction?: string;
}

export interface FakeTrigger {
  category: string;
  /** Share of funds in percent (Chainalysis sends a number). */
  percentage: number;
  message?: string;
  ruleTriggered?: { risk: string; exposureType: 'direct' | 'indirect'; direction?: string } | null;
}

export interface FakeIdentification {
  category: string;
  name: string;
  description?: string;
  url?: string | null;
}

/** What the Entity API says about one address. `risk` may be any string to test unknown levels. */
export interface FakeEntity {
  risk: FakeRiskLevel | (string & {});
  riskReason?: string | null;
  cluster?: { name: string; category: string } | null;
  addressIdentifications?: FakeIdentification[];
  exposures?: FakeExposure[];
  triggers?: FakeTrigger[];
}

export type FakeFault =
  /** Answer with this status (500, 429 …) and a small JSON error body. */
  | { kind: 'status'; status: number }
  /** Answer normally after `ms` milliseconds. */
  | { kind: 'delay'; ms: number }
  /** Never answer (the connection is dropped by `close()`). */
  | { kind: 'hang' }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** 200 with JSON lacking the field that carries the answer (`risk` / `identifications`). */
  | { kind: 'missing_fields' }
  /** 200 with a valid answer padded past 1 MiB, sent chunked (no content-length). */
  | { kind: 'oversized' }
  /** Entity API: 200 with the address's answer but an assessment `status` other than COMPLETE (default PENDING). */
  | { kind: 'incomplete'; status?: string }
  /** Entity API: 200 with the answer for another address, naming that address. */
  | { kind: 'other_address'; address: string }
  /** 200 with exactly this JSON body (e.g. a bare `{"risk":"Low"}` that names no address and no status). */
  | { kind: 'body'; body: unknown };

export type FakeApi = 'entity' | 'sanctions';

export interface FakeVendorCall {
  api: FakeApi;
  address: string;
  /** The `Token` (entity) or `X-API-Key` (sanctions) header as received. */
  apiKey: string | null;
  at: Date;
}

export interface FakeChainalysisOptions {
  /** Entity answers per address. */
  entities?: Record<string, FakeEntity>;
  /** Answer for addresses not in `entities` (default: Low, no exposures). */
  defaultEntity?: FakeEntity;
  /** Sanctions identifications per address; any other address gets `{"identifications":[]}`. */
  sanctioned?: Record<string, FakeIdentification[]>;
  /** Faults per API and address; `'*'` applies to every address of that API. */
  faults?: Partial<Record<FakeApi, Record<string, FakeFault>>>;
  /** When set, requests without this key get 401 (both APIs). */
  apiKey?: string;
}

export interface FakeChainalysis {
  /** Entity API base, like `https://api.chainalysis.com/api/risk` (append `/v2/entities/{address}`). */
  entityUrl: string;
  /** Sanctions API base, like `https://public.chainalysis.com/api/v1` (append `/address/{address}`). */
  sanctionsUrl: string;
  /** Every request received, in order. */
  calls: FakeVendorCall[];
  setEntity(address: string, entity: FakeEntity): void;
  setSanctioned(address: string, identifications: FakeIdentification[] | null): void;
  /** Sets (or with `null` clears) a fault; `'*'` = every address of that API. */
  setFault(api: FakeApi, address: string, fault: FakeFault | null): void;
  close(): Promise<void>;
}

const ENTITY_PATH = /^\/api\/risk\/v2\/entities\/([^/?]+)$/;
const SANCTIONS_PATH = /^\/api\/v1\/address\/([^/?]+)$/;

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

function entityBody(address: string, e: FakeEntity, status = 'COMPLETE'): unknown {
  return {
    address,
    risk: e.risk,
    riskReason: e.riskReason ?? null,
    cluster: e.cluster ?? null,
    addressType: 'PRIVATE_WALLET',
    addressIdentifications: e.addressIdentifications ?? [],
    exposures: (e.exposures ?? []).map((x) => ({
      category: x.category,
      value: x.value,
      exposureType: x.exposureType ?? 'direct',
      direction: x.direction ?? 'both_directions',
    })),
    triggers: (e.triggers ?? []).map((x) => ({
      category: x.category,
      percentage: x.percentage,
      message: x.message ?? `${x.category} exposure`,
      ruleTriggered: x.ruleTriggered ?? null,
    })),
    status,
  };
}

export async function startFakeChainalysis(options: FakeChainalysisOptions = {}): Promise<FakeChainalysis> {
  const entities = new Map(Object.entries(options.entities ?? {}));
  const sanctioned = new Map(Object.entries(options.sanctioned ?? {}));
  const faults: Record<FakeApi, Map<string, FakeFault>> = {
    entity: new Map(Object.entries(options.faults?.entity ?? {})),
    sanctions: new Map(Object.entries(options.faults?.sanctions ?? {})),
  };
  const defaultEntity = options.defaultEntity ?? { risk: 'Low' };
  const calls: FakeVendorCall[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const answer = (api: FakeApi, address: string, res: ServerResponse, status?: string): void => {
    if (api === 'entity')
      send(res, 200, JSON.stringify(entityBody(address, entities.get(address) ?? defaultEntity, status)));
    else send(res, 200, JSON.stringify({ identifications: sanctioned.get(address) ?? [] }));
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const entityMatch = ENTITY_PATH.exec(path);
    const sanctionsMatch = SANCTIONS_PATH.exec(path);
    const match = entityMatch ?? sanctionsMatch;
    if (req.method !== 'GET' || !match) return send(res, 404, '{"message":"not found"}');
    const api: FakeApi = entityMatch ? 'entity' : 'sanctions';
    const address = decodeURIComponent(match[1] ?? '');
    const keyHeader = req.headers[api === 'entity' ? 'token' : 'x-api-key'];
    const apiKey = typeof keyHeader === 'string' ? keyHeader : null;
    calls.push({ api, address, apiKey, at: new Date() });
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      return send(res, 401, '{"message":"Unauthorized"}');
    }
    const fault = faults[api].get(address) ?? faults[api].get('*');
    switch (fault?.kind) {
      case undefined:
        return answer(api, address, res);
      case 'status':
        return send(res, fault.status, JSON.stringify({ message: `injected ${fault.status}` }), {
          ...(fault.status === 429 ? { 'retry-after': '1' } : {}),
        });
      case 'delay': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) answer(api, address, res);
        }, fault.ms);
        timers.add(timer);
        return;
      }
      case 'hang':
        return;
      case 'malformed':
        return send(res, 200, '{"risk": "Sev');
      case 'missing_fields':
        return send(res, 200, JSON.stringify(api === 'entity' ? { address, status: 'COMPLETE' } : {}));
      case 'incomplete':
        // The sanctions API has no assessment status: it answers as usual.
        return answer(api, address, res, fault.status ?? 'PENDING');
      case 'other_address':
        return answer(api, fault.address, res);
      case 'body':
        return send(res, 200, JSON.stringify(fault.body));
      case 'oversized': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const pad = 'x'.repeat(64 * 1024);
        res.write(`{"risk":"Low","identifications":[],"pad":"`);
        for (let i = 0; i < 20; i++) res.write(pad);
        return void res.end('"}');
      }
    }
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    entityUrl: `${origin}/api/risk`,
    sanctionsUrl: `${origin}/api/v1`,
    calls,
    setEntity: (address, entity) => void entities.set(address, entity),
    setSanctioned: (address, ids) => void (ids ? sanctioned.set(address, ids) : sanctioned.delete(address)),
    setFault: (api, address, fault) => void (fault ? faults[api].set(address, fault) : faults[api].delete(address)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
