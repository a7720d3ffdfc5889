import type { Dispatcher } from 'undici';
import { MAX_TIMER_MS } from './retry.js';

type Headers = Record<string, string | string[] | undefined>;

/** What one HTTP attempt gave: a response (any status; its body when not over the limit), or no response at all. */
export type Attempt =
  | { kind: 'response'; status: number; headers: Headers; raw: string }
  | { kind: 'oversized'; status: number; headers: Headers }
  | { kind: 'no_response'; reason: 'network' | 'timeout' | 'aborted'; message: string };

export interface AttemptSpec {
  dispatcher: Dispatcher;
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Answers larger than this are not an answer of the API (its largest is a few KiB). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

export const ABORTED: Attempt = { kind: 'no_response', reason: 'aborted', message: 'aborted by the caller' };

/** One HTTP exchange within `timeoutMs` (at most a timer's limit, MAX_TIMER_MS); never throws. */
export async function sendOnce(
  spec: AttemptSpec,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  const timeout = AbortSignal.timeout(Math.min(MAX_TIMER_MS, Math.max(1, timeoutMs)));
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const res = await spec.dispatcher.request({
      origin: spec.origin,
      method: spec.method,
      path: spec.path,
      headers: spec.headers,
      body: spec.body ?? null,
      signal: combined,
    });
    const raw = await readText(res.body);
    // The response came back, so its status counts: a 200 the client cannot read must not be sent again.
    if (raw === null) return { kind: 'oversized', status: res.statusCode, headers: res.headers };
    return { kind: 'response', status: res.statusCode, headers: res.headers, raw };
  } catch (error) {
    if (signal?.aborted) return ABORTED;
    if (timeout.aborted) return { kind: 'no_response', reason: 'timeout', message: `no answer within ${timeoutMs} ms` };
    return { kind: 'no_response', reason: 'network', message: describe(error) };
  }
}

async function readText(body: Dispatcher.ResponseData['body']): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code =
    'code' in error && typeof error.code === 'string' && !error.message.includes(error.code) ? `${error.code}: ` : '';
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${code}${error.message}${cause}`;
}
