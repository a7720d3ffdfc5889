import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { err, ok, type Result } from 'neverthrow';
import { getGlobalDispatcher, interceptors, request } from 'undici';
import { rethrowProgrammerError } from '../../chain/programmer-error.js';
import { withDefaults } from '../../defaults.js';
import { parseOfacXml, type OfacParseLimits, type ParsedOfacList } from './sdn-xml.js';

/** OFAC's SDN list (about 30 MB); it redirects to the Sanctions List Service. */
export const DEFAULT_OFAC_SDN_URL = 'https://www.treasury.gov/ofac/downloads/sdn.xml';

export interface OfacDownloadLimits extends OfacParseLimits {
  /** Bytes read at most (sdn.xml is ~30 MB, sdn_advanced.xml ~100 MB). */
  maxBytes: number;
  /** The whole download and parse, redirects included. */
  timeoutMs: number;
}

export const DEFAULT_OFAC_DOWNLOAD_LIMITS: OfacDownloadLimits = {
  maxBytes: 256 * 1024 * 1024,
  timeoutMs: 300_000,
  maxAddresses: 100_000,
};

/** What a conditional request sends back: the validators of the list in use. */
export interface OfacValidators {
  etag: string | null;
  lastModified: string | null;
}

/**
 * A file's modification time (`writtenAt`): a copy is as current as when it was written, however often
 * it is read again. Absent for an HTTP answer, which is current when it comes.
 */
export type OfacDownload =
  /** 304 (or an unchanged file): the list in use is still OFAC's current one. */
  | { kind: 'not_modified'; writtenAt?: Date }
  | { kind: 'downloaded'; list: ParsedOfacList; validators: OfacValidators; writtenAt?: Date };

/** Why a download gave no list: `download` (network, status, size, time) or `parse` (not a whole, valid file). */
export interface OfacDownloadFailure {
  kind: 'download' | 'parse';
  reason: string;
}

const MAX_REDIRECTIONS = 5;

/**
 * Downloads OFAC's list from `url` (http(s), following redirects, or `file:` for air-gapped use) and
 * parses it as it streams in, within `limits`. With `validators`, asks conditionally (If-None-Match /
 * If-Modified-Since); a file counts as unchanged while its size and modification time are.
 */
export async function downloadOfacList(options: {
  url: string;
  validators?: OfacValidators | null;
  limits?: Partial<OfacDownloadLimits>;
  signal?: AbortSignal;
}): Promise<Result<OfacDownload, OfacDownloadFailure>> {
  const limits = withDefaults(DEFAULT_OFAC_DOWNLOAD_LIMITS, options.limits);
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const failed = (cause: unknown): Result<never, OfacDownloadFailure> =>
    err({
      kind: 'download',
      reason: timeout.aborted
        ? `timed out after ${limits.timeoutMs} ms`
        : `request failed: ${(cause as Error).message}`,
    });
  try {
    const opened = options.url.startsWith('file:')
      ? await openFile(options.url, options.validators ?? null, signal)
      : await openHttp(options.url, options.validators ?? null, signal);
    if (opened.isErr()) return err(opened.error);
    const written = opened.value.writtenAt ? { writtenAt: opened.value.writtenAt } : {};
    if (opened.value.kind === 'not_modified') return ok({ kind: 'not_modified', ...written });
    const { body, validators } = opened.value;
    const counted = bounded(body, limits.maxBytes);
    const parsed = await parseOfacXml(counted.chunks, limits);
    if (counted.tooLarge()) return err({ kind: 'download', reason: `larger than ${limits.maxBytes} bytes` });
    if (parsed.isErr()) return err({ kind: 'parse', reason: parsed.error });
    return ok({ kind: 'downloaded', list: parsed.value, validators, ...written });
  } catch (cause) {
    // The network, the file system and a fired signal fail with codes; a bug is thrown on.
    rethrowProgrammerError(cause);
    return failed(cause);
  }
}

type Opened =
  | { kind: 'not_modified'; writtenAt?: Date }
  | {
      kind: 'body';
      body: AsyncIterable<Uint8Array> & { destroy(): void };
      validators: OfacValidators;
      writtenAt?: Date;
    };

async function openHttp(
  url: string,
  validators: OfacValidators | null,
  signal: AbortSignal,
): Promise<Result<Opened, OfacDownloadFailure>> {
  const headers: Record<string, string> = { accept: 'application/xml, text/xml, */*' };
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  const dispatcher = getGlobalDispatcher().compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
  const res = await request(url, { method: 'GET', headers, signal, dispatcher });
  if (res.statusCode === 304) {
    await res.body.dump();
    return ok({ kind: 'not_modified' });
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    return err({ kind: 'download', reason: `HTTP ${res.statusCode}` });
  }
  const header = (name: string) => {
    const value = res.headers[name];
    return typeof value === 'string' && value.length <= 512 ? value : null;
  };
  return ok({
    kind: 'body',
    body: res.body,
    validators: { etag: header('etag'), lastModified: header('last-modified') },
  });
}

async function openFile(
  url: string,
  validators: OfacValidators | null,
  signal: AbortSignal,
): Promise<Result<Opened, OfacDownloadFailure>> {
  const path = fileURLToPath(url);
  const info = await stat(path);
  const etag = `"file-${info.size}-${info.mtimeMs}"`;
  if (validators?.etag === etag) return ok({ kind: 'not_modified', writtenAt: info.mtime });
  const body = createReadStream(path, { signal });
  return ok({
    kind: 'body',
    body,
    validators: { etag, lastModified: info.mtime.toUTCString() },
    writtenAt: info.mtime,
  });
}

/** The body's chunks until `maxBytes`; past it the body is destroyed and the stream ends early (a parse error follows). */
function bounded(
  body: AsyncIterable<Uint8Array> & { destroy(): void },
  maxBytes: number,
): { chunks: AsyncIterable<Uint8Array>; tooLarge(): boolean } {
  let bytes = 0;
  let over = false;
  return {
    tooLarge: () => over,
    chunks: {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of body) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) {
            over = true;
            body.destroy();
            return;
          }
          yield chunk;
        }
      },
    },
  };
}
